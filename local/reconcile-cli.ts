import { dataDirFromEnv, parseCommandLine, portFromEnv } from './command-line.ts';
import { requireSessionKey } from './session-key.ts';

// `npm run reconcile -- [--dry-run] [--tenant T]`: asks the running local service (npm start) to
// find and repair drift between schedule rows and triggers. The local triggers live inside that
// process, so the CLI talks to it over loopback, authenticated by the local session key.
const USAGE =
  'usage: npm run reconcile -- [--dry-run] [--tenant <tenant>]\n' +
  '  Asks the running service (PORT, default 3000; its DATA_DIR, default .data/) to repair drift\n' +
  '  between schedule rows and their triggers. --dry-run only reports it.';
const values = parseCommandLine(USAGE, { 'dry-run': { type: 'boolean', default: false }, tenant: { type: 'string' } });
const port = portFromEnv();
const key = await requireSessionKey(dataDirFromEnv());
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
