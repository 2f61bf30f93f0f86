import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadOrCreateSessionKey } from './session-key.ts';

// `npm run reconcile -- [--dry-run] [--tenant T]`: asks the running local service (npm start) to
// find and repair drift between schedule rows and triggers. The local triggers live inside that
// process, so the CLI talks to it over loopback, authenticated by the local session key.
const { values } = parseArgs({ options: { 'dry-run': { type: 'boolean', default: false }, tenant: { type: 'string' } } });
const port = Number(process.env.PORT ?? 3000);
const key = await loadOrCreateSessionKey(resolve(process.env.DATA_DIR ?? '.data'));
let response: Response;
try {
  response = await fetch(`http://127.0.0.1:${port}/_local/reconcile`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-local-admin-key': key },
    body: JSON.stringify({ dry_run: values['dry-run'], tenant: values.tenant }),
  });
} catch {
  process.stderr.write(`no local service on port ${port}: start it with npm start (or set PORT)\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(await response.json(), null, 2)}\n`);
process.exit(response.ok ? 0 : 1);
