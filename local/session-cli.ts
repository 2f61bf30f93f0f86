import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { signSessionToken } from '../shared/auth/session-token.ts';
import { Identity } from '../shared/domain/identity.ts';
import { loadOrCreateSessionKey } from './session-key.ts';

// `npm run session -- --tenant acme --role admin [--sub alice] [--ttl 3600]`: prints a session token
// signed with the local key (DATA_DIR/session-key), for curl or the browser's `session` cookie.
const { values } = parseArgs({
  options: {
    tenant: { type: 'string' },
    role: { type: 'string', default: 'admin' },
    sub: { type: 'string', default: 'local-user' },
    ttl: { type: 'string', default: String(8 * 3600) },
  },
});
const identity = Identity.safeParse({ tenant: values.tenant, role: values.role, sub: values.sub });
if (!identity.success) {
  process.stderr.write('usage: npm run session -- --tenant <tenant> --role viewer|operator|admin [--sub NAME] [--ttl SECONDS]\n');
  process.stderr.write(`  ${identity.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n  ')}\n`);
  process.exit(2);
}
const key = await loadOrCreateSessionKey(resolve(process.env.DATA_DIR ?? '.data'));
process.stdout.write(`${await signSessionToken(identity.data, key, { ttlSeconds: Number(values.ttl) })}\n`);
