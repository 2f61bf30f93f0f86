// Import order matters: the metadata stand-in must run before @peculiar/x509 loads tsyringe.
import './reflect-metadata.ts';

export * from '@peculiar/x509';
