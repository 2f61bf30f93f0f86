import { config } from 'zod';

/**
 * Imported (dynamically) before the scan's modules: a scan parses each schema once (its config,
 * its report), and zod's JIT would compile a parser per object schema with new Function for that
 * one parse. zod reads the setting when a schema is built. Only this process (the CLI) is set so;
 * the service's long-lived processes keep the JIT.
 *
 * A module of its own, importing `config` by name: `(await import('zod')).config(...)` needs zod's
 * whole namespace, which kept every export in the bundle (its 48 locales, the JSON Schema
 * generator: 456 KiB of the scan's 690 KiB), parsed on every scan.
 */
config({ jitless: true });
