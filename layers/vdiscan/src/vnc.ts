/**
 * VNC's security types (RFC 6143 §7.1.1-7.1.2): the ProtocolVersion handshake, the list of security
 * types the server offers, and, when VeNCrypt (19) is among them, its subtypes (VeNCrypt 0.2: the
 * version exchange and the subtype list). The scan never chooses a subtype, never answers a VNC
 * authentication challenge and never sends a password: it closes after the lists.
 */
import type { ReportBuilder } from '../../../lib/report.ts';
import { VDI_RULES } from './catalogue.ts';
import { endpointLabel, openLink, type Link, type PortContext } from './link.ts';

export class VncProtocolError extends Error {
  override readonly name = 'VncProtocolError';
}

export const SECURITY_TYPES: Readonly<Record<number, string>> = {
  1: 'None',
  2: 'VNC Authentication',
  5: 'RA2',
  6: 'RA2ne',
  16: 'Tight',
  17: 'Ultra',
  18: 'TLS',
  19: 'VeNCrypt',
  20: 'GTK-VNC SASL',
  21: 'MD5 hash',
  22: 'Colin Dean xvp',
  30: 'Apple Remote Desktop',
  113: 'MS-Logon II',
};

export const VENCRYPT_SUBTYPES: Readonly<Record<number, string>> = {
  256: 'Plain',
  257: 'TLSNone',
  258: 'TLSVnc',
  259: 'TLSPlain',
  260: 'X509None',
  261: 'X509Vnc',
  262: 'X509Plain',
  263: 'TLSSASL',
  264: 'X509SASL',
};

export interface VncFacts {
  version: string;
  types: number[];
  /** VeNCrypt's subtypes; null when VeNCrypt is not offered; 'unknown' when its version is not 0.2. */
  subtypes: number[] | null | 'unknown';
}

const VERSION = /^RFB (\d{3})\.(\d{3})\n$/;
const MAX_REASON = 4096;

export const typeName = (type: number): string => `${SECURITY_TYPES[type] ?? 'unknown'} (${type})`;
/** VeNCrypt subtypes below 256 are the plain RFB security types (TigerVNC lists VncAuth as 2). */
export const subtypeName = (type: number): string => (type < 256 ? typeName(type) : `${VENCRYPT_SUBTYPES[type] ?? 'unknown'} (${type})`);

/** The 12-byte ProtocolVersion the server sent first, as the port's identification read it. */
export function parseVersion(greeting: Buffer): { major: number; minor: number } {
  const match = VERSION.exec(greeting.toString('latin1'));
  if (!match) throw new VncProtocolError(`not an RFB ProtocolVersion: ${JSON.stringify(greeting.toString('latin1').slice(0, 12))}`);
  return { major: Number(match[1]), minor: Number(match[2]) };
}

async function failureReason(link: Link, context: PortContext): Promise<string> {
  const length = (await link.reader.exactly(4, context.readTimeoutMs, context.signal)).readUInt32BE(0);
  if (length > MAX_REASON) return `a reason of ${length} bytes`;
  return (await link.reader.exactly(length, context.readTimeoutMs, context.signal)).toString('utf8');
}

/**
 * Reads the security types, on the connection that brought the greeting when there is one (a VNC
 * server counts every unfinished connection towards its blacklist: one connection a scan, as
 * nmap's vnc-info), else on a new one. Throws on anything RFC 6143 does not allow.
 */
export async function readSecurityTypes(context: PortContext, started?: { link: Link; greeting: Buffer }): Promise<VncFacts> {
  const link = started?.link ?? (await openLink(context));
  try {
    const greeting = started?.greeting ?? (await link.reader.exactly(12, context.readTimeoutMs, context.signal));
    const { major, minor } = parseVersion(greeting);
    const version = `${major}.${minor}`;
    // Answer with the highest version both speak: 3.8, 3.7, else 3.3 (RFC 6143 §7.1.1).
    const ours = major > 3 || minor >= 8 ? 8 : minor === 7 ? 7 : 3;
    link.socket.write(`RFB 003.00${ours}\n`);
    if (ours === 3) {
      const type = (await link.reader.exactly(4, context.readTimeoutMs, context.signal)).readUInt32BE(0);
      if (type === 0) throw new VncProtocolError(`the server refused the connection: ${await failureReason(link, context)}`);
      if (type > 255) throw new VncProtocolError(`security type ${type} in an RFB 3.3 answer`);
      return { version, types: [type], subtypes: type === 19 ? 'unknown' : null };
    }
    const count = (await link.reader.exactly(1, context.readTimeoutMs, context.signal))[0];
    if (count === 0) throw new VncProtocolError(`the server refused the connection: ${await failureReason(link, context)}`);
    const types = [...(await link.reader.exactly(count, context.readTimeoutMs, context.signal))];
    if (types.includes(0)) throw new VncProtocolError(`the list of ${count} security types holds type 0 (Invalid)`);
    if (new Set(types).size !== types.length) throw new VncProtocolError(`the list of ${count} security types repeats types`);
    if (!types.includes(19)) return { version, types, subtypes: null };
    return { version, types, subtypes: await readVeNCryptSubtypes(link, context) };
  } finally {
    link.socket.destroy();
  }
}

/** Chooses VeNCrypt and reads its subtype list (VeNCrypt 0.2); chooses no subtype. */
async function readVeNCryptSubtypes(link: Link, context: PortContext): Promise<number[] | 'unknown'> {
  link.socket.write(Buffer.from([19]));
  const [major, minor] = await link.reader.exactly(2, context.readTimeoutMs, context.signal);
  if (major !== 0 || minor < 2) return 'unknown';
  link.socket.write(Buffer.from([0, 2]));
  const ack = (await link.reader.exactly(1, context.readTimeoutMs, context.signal))[0];
  if (ack !== 0) throw new VncProtocolError('the server refused VeNCrypt 0.2');
  const count = (await link.reader.exactly(1, context.readTimeoutMs, context.signal))[0];
  if (count === 0) throw new VncProtocolError('VeNCrypt offers no subtype');
  const bytes = await link.reader.exactly(count * 4, context.readTimeoutMs, context.signal);
  return Array.from({ length: count }, (_, i) => bytes.readUInt32BE(i * 4));
}

const TLS_SUBTYPES = new Set([257, 258, 259, 260, 261, 262, 263, 264]);
const NO_AUTH_SUBTYPES = new Set([1, 257, 260]);

/** The VNC verdicts of one port. */
export function recordVncVerdicts(report: ReportBuilder, context: Pick<PortContext, 'host' | 'port'>, facts: VncFacts): void {
  const label = endpointLabel(context);
  const subtypes = Array.isArray(facts.subtypes) ? facts.subtypes : [];
  const offered = [...facts.types.map(typeName), ...subtypes.map((s) => `VeNCrypt ${subtypeName(s)}`)];
  const evidence = {
    endpoint: label,
    rfb_version: facts.version,
    security_types: facts.types.map(typeName),
    ...(facts.subtypes === null
      ? {}
      : { vencrypt_subtypes: Array.isArray(facts.subtypes) ? subtypes.map(subtypeName) : 'not listed (VeNCrypt before 0.2)' }),
  };
  const finding = (detail: string) => ({ detail, evidence, fingerprint_key: label, subject: label, locations: [`tcp:${label}`] });
  const offeredText = offered.join(', ');

  const tls = facts.types.includes(18) || facts.subtypes === 'unknown' || subtypes.some((s) => TLS_SUBTYPES.has(s));
  const noAuth = [
    ...(facts.types.includes(1) ? ['None (1)'] : []),
    ...subtypes.filter((s) => NO_AUTH_SUBTYPES.has(s)).map((s) => `VeNCrypt ${subtypeName(s)}`),
  ];
  if (noAuth.length > 0) report.fail(VDI_RULES.vncNoAuth, finding(`${label} offers VNC without authentication: ${noAuth.join(', ')}.`));
  else report.pass(VDI_RULES.vncNoAuth, `${label} offers ${offeredText}: none without authentication.`);

  // What a client can authenticate with: the types and VeNCrypt's subtypes, None and VeNCrypt itself aside.
  const authenticating = new Set([...facts.types, ...subtypes].filter((t) => t !== 1 && t !== 19));
  const onlyVncAuth = !tls && authenticating.size === 1 && authenticating.has(2);
  if (onlyVncAuth)
    report.fail(VDI_RULES.vncWeakAuthOnly, finding(`${label}'s only authentication is VNC Authentication (offers ${offeredText}).`));
  else report.pass(VDI_RULES.vncWeakAuthOnly, `${label} offers ${offeredText}.`);

  if (!tls) report.fail(VDI_RULES.vncCleartext, finding(`${label} offers no TLS-protected security type (offers ${offeredText}).`));
  else report.pass(VDI_RULES.vncCleartext, `${label} offers a TLS-protected security type (${offeredText}).`);
}
