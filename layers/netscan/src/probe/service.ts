/** The services the probes name; `unknown` is an open port that answered nothing a probe recognises. */
export const SERVICE_NAMES = [
  'ssh',
  'smtp',
  'ftp',
  'pop3',
  'imap',
  'http',
  'telnet',
  'rdp',
  'vnc',
  'mysql',
  'postgresql',
  'redis',
  'mongodb',
  'elasticsearch',
  'memcached',
  'docker',
  'tls',
  'unknown',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/** What a probe learnt about an open port. */
export interface ServiceIdentity {
  service: ServiceName;
  /** The protocol runs inside TLS (https, smtps, a TLS port whose inner protocol is unknown: `tls`). */
  tls: boolean;
  product?: string;
  version?: string;
  /** The first line or the printable start of what the service sent, at most 200 characters. */
  banner?: string;
  /** Plain-text mail and file protocols: whether the service offers to upgrade to TLS (STARTTLS, STLS, AUTH TLS). */
  offersTls?: boolean;
  /** Protocol facts worth keeping as evidence (the SSH comment, the RDP security protocol, ...). */
  details?: Record<string, string | number | boolean>;
  /**
   * Why identification did not finish (a greeting cut short, a service that answered no probe):
   * the port's service rules cannot be judged and are `error`, never `pass`.
   */
  unfinished?: string;
}

/** Services whose answering port is a database or cache exposed to whoever can reach it. */
export const DATABASE_SERVICES: readonly ServiceName[] = ['mysql', 'postgresql', 'mongodb', 'redis', 'elasticsearch', 'memcached'];
/** Services that administer the host remotely. */
export const REMOTE_ADMIN_SERVICES: readonly ServiceName[] = ['rdp', 'vnc', 'docker'];

/** Printable text of a byte buffer: control bytes as `\xNN`, cut at `max` characters. */
export function printable(bytes: Buffer, max = 200): string {
  let text = '';
  for (const byte of bytes) {
    if (text.length >= max) break;
    text += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${byte.toString(16).padStart(2, '0')}`;
  }
  return text.length > max ? text.slice(0, max) : text;
}

/** The first line of a text greeting, without its line ending, cut at 200 characters. */
export function firstLine(bytes: Buffer): string {
  const text = bytes.toString('latin1');
  const end = text.search(/\r?\n/);
  return printable(Buffer.from(end === -1 ? text : text.slice(0, end), 'latin1'));
}
