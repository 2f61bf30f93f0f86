/**
 * Recognisers for services that speak first (SSH, FTP/SMTP/POP3/IMAP, telnet, VNC, MySQL): each
 * takes the bytes received so far and returns an identity, `null` (not this protocol), or
 * `'more'` (could be this protocol; wait for more bytes). Pure functions over buffers; the probe
 * driver does the I/O. Learnt from the protocols' RFCs and from what nmap's service probes
 * distinguish; no nmap data is copied.
 */
import { firstLine, printable, type ServiceIdentity } from './service.ts';

export type Recognised = ServiceIdentity | null | 'more';

const LINE_END = /\r?\n/;

/** RFC 4253 §4.2: `SSH-protoversion-softwareversion SP comments CR LF`. */
export function recogniseSsh(bytes: Buffer): Recognised {
  const text = bytes.toString('latin1');
  if (!'SSH-'.startsWith(text.slice(0, 4)) && !text.startsWith('SSH-')) return null;
  if (!LINE_END.test(text)) return text.length < 255 ? 'more' : null;
  const match = /^SSH-(\d+\.\d+)-([!-~]+)(?: ([^\r\n]*))?\r?\n/.exec(text);
  if (!match) return null;
  const [, protocol, software, comment] = match;
  const identity: ServiceIdentity = { service: 'ssh', tls: false, banner: firstLine(bytes), details: { protocol } };
  const product = /^([A-Za-z][A-Za-z-]*?)[_-](\d[\w.+~-]*)$/.exec(software);
  if (product) {
    identity.product = product[1];
    identity.version = product[2];
  } else identity.product = software;
  if (comment) identity.details!.comment = comment;
  return identity;
}

/** Telnet (RFC 854): servers open with option negotiation, IAC (0xff) then WILL/WONT/DO/DONT. */
export function recogniseTelnet(bytes: Buffer): Recognised {
  if (bytes.length === 0) return 'more';
  if (bytes[0] !== 0xff) return null;
  if (bytes.length < 3) return 'more';
  return bytes[1] >= 0xfb && bytes[1] <= 0xfe ? { service: 'telnet', tls: false, banner: printable(bytes) } : null;
}

/** RFB (RFC 6143 §7.1.1): `RFB xxx.yyy\n`. */
export function recogniseVnc(bytes: Buffer): Recognised {
  const text = bytes.toString('latin1');
  if (text.length < 12) return 'RFB '.startsWith(text.slice(0, 4)) ? 'more' : null;
  const match = /^RFB (\d{3})\.(\d{3})\n/.exec(text);
  if (!match) return null;
  return {
    service: 'vnc',
    tls: false,
    banner: printable(bytes.subarray(0, 12)),
    details: { protocol: `${Number(match[1])}.${Number(match[2])}` },
  };
}

/**
 * MySQL/MariaDB: the server's first packet (3-byte little-endian length, sequence 0) is a
 * HandshakeV10 (protocol 10, then the NUL-terminated server version) or an ERR packet (0xff, a
 * 2-byte code, a message: "Host ... is not allowed to connect").
 */
export function recogniseMysql(bytes: Buffer): Recognised {
  if (bytes.length < 5) return 'more';
  const length = bytes.readUIntLE(0, 3);
  if (bytes[3] !== 0 || length < 3 || length > 1024) return null;
  if (bytes.length < 4 + length) return 'more';
  const payload = bytes.subarray(4, 4 + length);
  if (payload[0] === 0xff) {
    const message = payload.subarray(3).toString('latin1');
    if (!/mysql|mariadb|host .* is not allowed|too many connections/i.test(message)) return null;
    return { service: 'mysql', tls: false, banner: printable(payload.subarray(3)), details: { error_code: payload.readUInt16LE(1) } };
  }
  if (payload[0] !== 0x0a) return null;
  const nul = payload.indexOf(0, 1);
  if (nul === -1) return null;
  const serverVersion = payload.subarray(1, nul).toString('latin1');
  if (!/^\d+\.\d+/.test(serverVersion)) return null;
  // MariaDB 10+ prefixes "5.5.5-" so that old clients accept it: "5.5.5-10.11.6-MariaDB-0+deb12u1".
  const maria = /^(?:5\.5\.5-)?(\d+\.\d+\.\d+)-MariaDB/.exec(serverVersion);
  const identity: ServiceIdentity = { service: 'mysql', tls: false, banner: serverVersion, details: { server_version: serverVersion } };
  if (maria) {
    identity.product = 'MariaDB';
    identity.version = maria[1];
  } else {
    identity.product = 'MySQL';
    identity.version = /^(\d+\.\d+\.\d+)/.exec(serverVersion)?.[1] ?? serverVersion;
  }
  // Capability flag CLIENT_SSL (0x0800) in the lower capability word, after the 8-byte scramble and a filler.
  const capabilityAt = nul + 1 + 4 + 8 + 1;
  if (payload.length >= capabilityAt + 2) identity.offersTls = (payload.readUInt16LE(capabilityAt) & 0x0800) !== 0;
  return identity;
}

/**
 * A `220` greeting is FTP or SMTP; the greeting alone often says which (vsFTPd, ProFTPD, ESMTP,
 * Postfix), and `'ambiguous'` asks the driver to send a command that tells them apart.
 */
export function classify220(text: string): 'smtp' | 'ftp' | 'ambiguous' {
  if (/\b(E?SMTP|Postfix|Exim|Sendmail|mail)\b/i.test(text)) return 'smtp';
  if (/\bFTP\b|FTPd|FileZilla|ProFTPD|Pure-FTPd|vsFTPd/i.test(text)) return 'ftp';
  return 'ambiguous';
}

/** Text greetings: FTP and SMTP (`220`), POP3 (`+OK`), IMAP (`* OK`/`* PREAUTH`). Returns the kind, not yet the identity. */
export function recogniseTextGreeting(
  bytes: Buffer,
): { kind: 'ftp' | 'smtp' | 'ambiguous' | 'pop3' | 'imap'; text: string } | null | 'more' {
  const received = bytes.toString('latin1');
  // Judge the complete lines only: a reply may arrive split anywhere.
  const lastNewline = received.lastIndexOf('\n');
  if (lastNewline === -1) {
    if (received.length > 4096) return null;
    return /^(2|22|220|\+|\+O|\+OK|\*|\* |\* O|\* P)/.test(received) || received.length === 0 ? 'more' : null;
  }
  const text = received.slice(0, lastNewline + 1);
  if (/^220[ -]/.test(text)) {
    // A multi-line 220 ends with "220 " (RFC 5321 §4.2.1, RFC 959 §4.2); until then, wait (the byte cap bounds the wait).
    if (!/(^|\n)220 [^\n]*\r?\n$/.test(text)) return 'more';
    return { kind: classify220(text), text };
  }
  if (/^\+OK/.test(text)) return { kind: 'pop3', text };
  if (/^\* (OK|PREAUTH)\b/i.test(text)) return { kind: 'imap', text };
  return null;
}

/** Product and version from a 220 or +OK greeting, where the software names itself. */
export function productFromGreeting(text: string): { product?: string; version?: string } {
  const patterns: [RegExp, string][] = [
    [/\(vsFTPd (\d[\w.]*)\)/i, 'vsftpd'],
    [/ProFTPD (\d[\w.]*)/i, 'ProFTPD'],
    [/Pure-FTPd/i, 'Pure-FTPd'],
    [/FileZilla Server(?: version)? (\d[\w.]*)/i, 'FileZilla Server'],
    [/ESMTP Exim (\d[\w.]*)/i, 'Exim'],
    [/ESMTP Postfix/i, 'Postfix'],
    [/ESMTP Sendmail (\d[\w./]*)/i, 'Sendmail'],
    [/Dovecot/i, 'Dovecot'],
  ];
  for (const [pattern, product] of patterns) {
    const match = pattern.exec(text);
    if (match) return match[1] ? { product, version: match[1] } : { product };
  }
  return {};
}
