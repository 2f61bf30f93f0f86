// Import order matters: tsyringe, which @peculiar/x509 loads, refuses to start without the Reflect
// metadata API. The lite entry of reflect-metadata provides it without the cross-realm registry.
import 'reflect-metadata/lite';

export * from '@peculiar/x509';
