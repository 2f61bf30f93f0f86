import { signSessionToken } from '../shared/auth/session-token.ts';
import { Identity } from '../shared/domain/identity.ts';
import { dataDirFromEnv, parseCommandLine, usageError } from './command-line.ts';
import { requireSessionKey } from './session-key.ts';

// `npm run session -- --tenant acme --role admin [--sub alice] [--ttl 3600]`: prints a session token
// signed with the running service's key (DATA_DIR/session-key), for curl or the sign-in page.
const USAGE =
  'usage: npm run session -- --tenant <tenant> [--role viewer|operator|admin] [--sub NAME] [--ttl SECONDS]\n' +
  '  Prints a session token signed with the local key in $DATA_DIR/session-key (default .data/).\n' +
  '  Use the DATA_DIR the service was started with: npm start prints the exact command.';

const values = parseCommandLine(USAGE, {
  tenant: { type: 'string' },
  role: { type: 'string', default: 'admin' },
  sub: { type: 'string', default: 'local-user' },
  ttl: { type: 'string', default: String(8 * 3600) },
});
const identity = Identity.safeParse({ tenant: values.tenant, role: values.role, sub: values.sub });
if (!identity.success) usageError(USAGE, identity.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`).join('\n'));
const ttlSeconds = Number(values.ttl);
if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0) usageError(USAGE, `--ttl must be a whole number of seconds, not ${values.ttl}`);
const key = await requireSessionKey(dataDirFromEnv());
process.stdout.write(`${await signSessionToken(identity.data, key, { ttlSeconds })}\n`);
