/**
 * Tenant credentials (DESIGN §16): the kinds, the shape of each kind's secret, the host binding,
 * and the engine-side loader.
 *
 * The dispatch decrypts one credential for one scan and writes it, as {@link CredentialFile} JSON,
 * to a file of mode 0600 in a folder of that run; the engine gets `--credential-file FILE`, the
 * kit's CLI frame loads it with {@link loadCredential} and hands it to the scan as
 * `context.credential`; the runner removes the folder after the scan. An engine sends the secret
 * only where {@link credentialAllowsHost} says, drops it on a redirect to another origin, and
 * never prints it ({@link credentialSecrets} lists what to redact).
 *
 * Host binding (`allowed_hosts`): each entry is a host name (`git.example.com`), an IP literal
 * (`192.0.2.7`, `2001:db8::7`, no brackets) or a wildcard `*.example.com`, which matches exactly
 * ONE label in front of the rest (`a.example.com`; neither `example.com` nor `a.b.example.com`),
 * as a certificate's wildcard does (RFC 6125 §6.4.3): the narrower reading, so a credential never
 * reaches a host its owner did not see written. Ports are not part of an entry: an allowed host
 * is allowed on every port. Names compare case-insensitively, without a trailing dot.
 */
import { readFile, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { isIP } from 'node:net';
import * as z from 'zod';
import { CREDENTIAL_ALIAS, CREDENTIAL_KINDS, HOST_BOUND_KINDS } from './credential-kinds.ts';
import type { CredentialKind } from './engine-manifest.ts';

export type { CredentialKind };

export { CREDENTIAL_KINDS, HOST_BOUND_KINDS };
/** The nhi kinds: sent only to their provider's API (the deployment's configuration); `allowed_hosts` is refused. */
export const PROVIDER_KINDS: readonly CredentialKind[] = ['aws_access_key', 'github_token', 'gitlab_token', 'slack_token'];

export function isHostBound(kind: CredentialKind): boolean {
  return HOST_BOUND_KINDS.includes(kind);
}

export { CREDENTIAL_ALIAS };
export const CredentialAlias = z.string().regex(CREDENTIAL_ALIAS, 'must be 1 to 63 of a-z, 0-9, _ and -, starting with a letter or digit');

/** The longest token or header value (bytes of ASCII): real ones are far shorter; 1 MB is refused. */
export const MAX_SECRET_VALUE_LENGTH = 4096;

// A token is what goes in a header: visible ASCII, no spaces, nothing that could end a header line.
const token = () =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_SECRET_VALUE_LENGTH, `must be at most ${MAX_SECRET_VALUE_LENGTH} characters`)
    .regex(/^[\x21-\x7e]+$/, 'must be visible ASCII without spaces');
// RFC 9110 §5.1 field-name (a token).
const headerName = () =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(256, 'must be at most 256 characters')
    .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be an HTTP header name');
// RFC 9110 §5.5 field-value, without obs-text: no CR, LF or NUL, so it cannot start another header.
const headerValue = () =>
  z
    .string()
    .min(1, 'must not be empty')
    .max(MAX_SECRET_VALUE_LENGTH, `must be at most ${MAX_SECRET_VALUE_LENGTH} characters`)
    .regex(/^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/, 'must be visible ASCII (spaces inside only)');

/** Each kind's secret (DESIGN §16), strict: an unknown field is refused, never stored. */
export const SECRET_SCHEMAS = {
  git_token: () =>
    z.strictObject({
      token: token(),
      username: z
        .string()
        .min(1, 'must not be empty')
        .max(256, 'must be at most 256 characters')
        .regex(/^[\x21-\x39\x3b-\x7e]+$/, 'must be visible ASCII without spaces or ":"')
        .optional(),
    }),
  http_header: () => z.strictObject({ name: headerName(), value: headerValue() }),
  aws_access_key: () =>
    z.strictObject({
      access_key_id: z.string().regex(/^[A-Z0-9]{16,128}$/, 'must be an AWS access key id (A-Z and 0-9)'),
      secret_access_key: z
        .string()
        .min(16, 'must be at least 16 characters')
        .max(128, 'must be at most 128 characters')
        .regex(/^[A-Za-z0-9/+=]+$/, 'must be an AWS secret access key (A-Z, a-z, 0-9, /, +, =)'),
    }),
  github_token: () => z.strictObject({ token: token() }),
  gitlab_token: () => z.strictObject({ token: token() }),
  slack_token: () => z.strictObject({ token: token() }),
  llm_api_key: () => z.strictObject({ token: token(), header: headerName().optional() }),
} as const satisfies Record<CredentialKind, () => z.ZodType>;

export type GitTokenSecret = z.infer<ReturnType<(typeof SECRET_SCHEMAS)['git_token']>>;
export type HttpHeaderSecret = z.infer<ReturnType<(typeof SECRET_SCHEMAS)['http_header']>>;
export type AwsAccessKeySecret = z.infer<ReturnType<(typeof SECRET_SCHEMAS)['aws_access_key']>>;
export type LlmApiKeySecret = z.infer<ReturnType<(typeof SECRET_SCHEMAS)['llm_api_key']>>;
/** The secret of any kind, as its schema parsed it. */
export type CredentialSecret = { [K in CredentialKind]: z.infer<ReturnType<(typeof SECRET_SCHEMAS)[K]>> }[CredentialKind];

/** The secret's primary value (DESIGN §16): the one the fingerprint is taken of. */
export function primaryValue(kind: CredentialKind, secret: CredentialSecret): string {
  const fields = secret as Record<string, string | undefined>;
  if (kind === 'http_header') return fields.value ?? '';
  if (kind === 'aws_access_key') return fields.secret_access_key ?? '';
  return fields.token ?? '';
}

/** The first 8 hex of the SHA-256 of the UTF-8 bytes of the primary value: tells two secrets apart, reveals nothing usable. */
export function credentialFingerprint(kind: CredentialKind, secret: CredentialSecret): string {
  return createHash('sha256').update(primaryValue(kind, secret), 'utf8').digest('hex').slice(0, 8);
}

const HOST_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A host name, IP literal or `*.name` written lower case without brackets or a trailing dot; null when it is none. */
export function normaliseHostPattern(raw: string): string | null {
  const text = raw.trim().toLowerCase().replace(/\.$/, '');
  if (text === '' || text.length > 253) return null;
  if (isIP(text) !== 0) return canonicalIp(text);
  const wildcard = text.startsWith('*.');
  const labels = (wildcard ? text.slice(2) : text).split('.');
  if (!labels.every((label) => HOST_LABEL.test(label))) return null;
  // `*.com` would bind a credential to a whole top-level domain: a wildcard needs two labels under it.
  if (wildcard && labels.length < 2) return null;
  // A name of digits and dots alone is an IPv4 address written oddly (`127.1`): refused, not guessed.
  if (/^[\d.]+$/.test(text)) return null;
  return text;
}

/** Why an `allowed_hosts` entry is not one (a scheme, a path, a port, a bare `*`...), or null. */
export function hostPatternProblem(raw: string): string | null {
  if (raw.includes('://')) return 'must be a host name, not a URL (no scheme)';
  if (raw.includes('/')) return 'must be a host name without a path';
  if (raw.trim() === '*') return 'must not be a bare * (name the hosts)';
  if (raw.includes('*') && !raw.trim().startsWith('*.')) return 'may hold * only as its first label (*.example.com)';
  if (raw.includes('*', 1)) return 'may hold one * only, as its first label';
  if (/^\[.*\]$/.test(raw.trim())) return 'must be an IP literal without brackets';
  if (isIP(raw.trim()) === 0 && raw.includes(':')) return 'must be a host name without a port';
  return normaliseHostPattern(raw) === null ? 'must be a host name, an IP literal or *.example.com' : null;
}

function canonicalIp(text: string): string {
  if (isIP(text) === 4) return text;
  // The URL parser writes an IPv6 address in its one canonical form (RFC 5952).
  return new URL(`http://[${text}]/`).hostname.replace(/^\[|\]$/g, '');
}

/** The host as it is compared: lower case, no brackets, no trailing dot, IPv6 canonical. */
function normaliseHost(host: string): string {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
  return isIP(bare) !== 0 ? canonicalIp(bare) : bare;
}

/** Does `pattern` (an `allowed_hosts` entry) admit `host`? Wildcards match exactly one label. */
export function hostMatches(pattern: string, host: string): boolean {
  const wanted = normaliseHostPattern(pattern);
  const actual = normaliseHost(host);
  if (wanted === null || actual === '') return false;
  if (!wanted.startsWith('*.')) return wanted === actual;
  if (isIP(actual) !== 0) return false;
  const suffix = wanted.slice(1);
  if (!actual.endsWith(suffix)) return false;
  const head = actual.slice(0, -suffix.length);
  return HOST_LABEL.test(head);
}

/** What the engine reads from `--credential-file` (and what the dispatch writes). */
export const CredentialFile = z.lazy(() =>
  z.discriminatedUnion('kind', [
    fileOf('git_token'),
    fileOf('http_header'),
    fileOf('aws_access_key'),
    fileOf('github_token'),
    fileOf('gitlab_token'),
    fileOf('slack_token'),
    fileOf('llm_api_key'),
  ]),
);

function fileOf<K extends CredentialKind>(kind: K) {
  return z.strictObject({
    alias: CredentialAlias,
    kind: z.literal(kind),
    secret: SECRET_SCHEMAS[kind]() as ReturnType<(typeof SECRET_SCHEMAS)[K]>,
    allowed_hosts: z.array(z.string().max(253)).max(100),
  });
}

export type CredentialFile = z.infer<typeof CredentialFile>;
/** A credential as an engine holds it for one scan. */
export type LoadedCredential = CredentialFile;

/** The credential file could not be used; the message never holds a secret value. */
export class CredentialFileError extends Error {
  override readonly name = 'CredentialFileError';
}

const MAX_CREDENTIAL_FILE_BYTES = 64 * 1024;

/**
 * Reads and validates a credential file. Refuses a file that others than its owner may read (the
 * dispatch writes 0600), one over 64 KiB, one that is not JSON or not a credential. Error
 * messages name fields, never values.
 */
export async function loadCredential(path: string): Promise<LoadedCredential> {
  let text: string;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new CredentialFileError(`the credential file ${path} is not a file`);
    if (process.platform !== 'win32' && (info.mode & 0o077) !== 0) {
      throw new CredentialFileError(
        `the credential file ${path} may be read by others (mode ${(info.mode & 0o777).toString(8)}; 600 expected)`,
      );
    }
    if (info.size > MAX_CREDENTIAL_FILE_BYTES) throw new CredentialFileError(`the credential file ${path} is larger than 64 KiB`);
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (error instanceof CredentialFileError) throw error;
    throw new CredentialFileError(`the credential file ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CredentialFileError(`the credential file ${path} is not JSON`);
  }
  const parsed = CredentialFile.safeParse(value);
  if (!parsed.success) {
    const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.join('.') || '(file)'))];
    throw new CredentialFileError(`the credential file ${path} is not a credential: ${fields.join(', ')}`);
  }
  const problems = parsed.data.allowed_hosts.filter((entry) => normaliseHostPattern(entry) === null);
  if (problems.length > 0) throw new CredentialFileError(`the credential file ${path} has allowed_hosts entries that are not hosts`);
  return parsed.data;
}

/**
 * May `cred` be sent to `host`? Only a host-bound kind, only to a host its `allowed_hosts` admits
 * (exact names, IP literals, `*.example.com` for one label). The provider kinds answer false:
 * their engine sends them to the provider's configured API, never to a host of a target.
 */
export function credentialAllowsHost(cred: Pick<LoadedCredential, 'kind' | 'allowed_hosts'>, host: string): boolean {
  if (!isHostBound(cred.kind)) return false;
  return cred.allowed_hosts.some((pattern) => hostMatches(pattern, host));
}

/**
 * Every string of the credential that must never appear in a report or a log line: each secret
 * field of some length, and the Basic-auth encodings an engine may build of a git token.
 */
export function credentialSecrets(cred: LoadedCredential): string[] {
  const fields = cred.secret as Record<string, string | undefined>;
  const values: string[] = [primaryValue(cred.kind, cred.secret)];
  if (cred.kind === 'git_token') values.push(Buffer.from(`${fields.username ?? 'x-access-token'}:${fields.token}`).toString('base64'));
  if (cred.kind === 'aws_access_key') values.push(fields.secret_access_key ?? '');
  return [...new Set(values.filter((value) => value.length >= 4))];
}

/** `text` with every secret string replaced: the last line of defence for error messages. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  return secrets.filter((secret) => secret.length > 0).reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

/** Is this `allowed_hosts` entry (normalised) an IP literal? */
export function isIpLiteral(entry: string): boolean {
  return isIP(entry) !== 0;
}
