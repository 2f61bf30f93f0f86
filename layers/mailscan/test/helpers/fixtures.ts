import { fileURLToPath } from 'node:url';

/** The zone files every mailscan test server loads. */
export const zoneDir = fileURLToPath(new URL('../../../../test/fixtures/mailscan/zones/', import.meta.url));
