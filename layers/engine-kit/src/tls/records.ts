/**
 * TLS records and handshake messages on the wire (RFC 8446 §5.1, RFC 5246 §6.2), read from an
 * untrusted peer: every length is checked before it is trusted, and anything that is not a TLS
 * record is a `NotTls` error naming what arrived instead.
 */

export const ContentType = {
  changeCipherSpec: 20,
  alert: 21,
  handshake: 22,
  applicationData: 23,
  heartbeat: 24,
} as const;

export const HandshakeType = {
  clientHello: 1,
  serverHello: 2,
  certificate: 11,
  serverKeyExchange: 12,
  certificateRequest: 13,
  serverHelloDone: 14,
  certificateStatus: 22,
} as const;

export const ProtocolVersion = {
  ssl3: 0x0300,
  tls10: 0x0301,
  tls11: 0x0302,
  tls12: 0x0303,
  tls13: 0x0304,
} as const;

/** RFC 8446 §5.1: a plaintext fragment is at most 2^14 bytes; 2^14 + 2048 allows for expansion. */
export const MAX_RECORD_FRAGMENT = 16384 + 2048;

export interface TlsRecord {
  type: number;
  version: number;
  fragment: Buffer;
}

/** What arrived was not TLS (or broke TLS framing). */
export class NotTls extends Error {
  override readonly name = 'NotTls';
}

export function encodeRecord(type: number, version: number, fragment: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt8(type, 0);
  header.writeUInt16BE(version, 1);
  header.writeUInt16BE(fragment.length, 3);
  return Buffer.concat([header, fragment]);
}

/** A 5-byte record header, checked: the content type is known, the version is SSL 3 or TLS, the length fits. */
export function parseRecordHeader(header: Buffer): { type: number; version: number; length: number } {
  const type = header.readUInt8(0);
  const version = header.readUInt16BE(1);
  const length = header.readUInt16BE(3);
  if (type < ContentType.changeCipherSpec || type > ContentType.heartbeat || header[1] !== 3) {
    throw new NotTls(`not a TLS record (first bytes ${header.subarray(0, 5).toString('hex')}${describePrintable(header)})`);
  }
  if (length > MAX_RECORD_FRAGMENT) throw new NotTls(`a TLS record of ${length} bytes exceeds the ${MAX_RECORD_FRAGMENT}-byte limit`);
  return { type, version, length };
}

function describePrintable(bytes: Buffer): string {
  const text = bytes.toString('latin1');
  return /^[\x20-\x7e\r\n]+$/.test(text) ? `, text ${JSON.stringify(text)}` : '';
}

export function encodeHandshake(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt8(type, 0);
  header.writeUIntBE(body.length, 1, 3);
  return Buffer.concat([header, body]);
}

export interface HandshakeMessage {
  type: number;
  body: Buffer;
}

/**
 * Reassembles handshake messages from handshake records. `maxMessage` bounds a message's declared
 * length, so a peer announcing a 16 MB certificate is refused before its bytes are read.
 */
export class HandshakeAssembler {
  private pending: Buffer = Buffer.alloc(0);

  constructor(private readonly maxMessage: number) {}

  push(fragment: Buffer): HandshakeMessage[] {
    this.pending = this.pending.length === 0 ? fragment : Buffer.concat([this.pending, fragment]);
    const messages: HandshakeMessage[] = [];
    while (this.pending.length >= 4) {
      const length = this.pending.readUIntBE(1, 3);
      if (length > this.maxMessage) {
        throw new NotTls(`a handshake message (type ${this.pending[0]}) of ${length} bytes exceeds the ${this.maxMessage}-byte limit`);
      }
      if (this.pending.length < 4 + length) break;
      messages.push({ type: this.pending[0], body: this.pending.subarray(4, 4 + length) });
      this.pending = this.pending.subarray(4 + length);
    }
    return messages;
  }
}

/** A cursor over a message body; every read checks the remaining length. */
export class Cursor {
  private offset = 0;

  constructor(
    private readonly bytes: Buffer,
    private readonly what: string,
  ) {}

  get remaining(): number {
    return this.bytes.length - this.offset;
  }

  private take(n: number): Buffer {
    if (n > this.remaining) throw new NotTls(`truncated ${this.what}`);
    const slice = this.bytes.subarray(this.offset, this.offset + n);
    this.offset += n;
    return slice;
  }

  u8(): number {
    return this.take(1).readUInt8(0);
  }

  u16(): number {
    return this.take(2).readUInt16BE(0);
  }

  u24(): number {
    return this.take(3).readUIntBE(0, 3);
  }

  bytesOf(n: number): Buffer {
    return this.take(n);
  }

  vector8(): Buffer {
    return this.take(this.u8());
  }

  vector16(): Buffer {
    return this.take(this.u16());
  }

  vector24(): Buffer {
    return this.take(this.u24());
  }
}

export const ALERT_DESCRIPTIONS: Readonly<Record<number, string>> = {
  0: 'close_notify',
  10: 'unexpected_message',
  20: 'bad_record_mac',
  21: 'decryption_failed',
  22: 'record_overflow',
  30: 'decompression_failure',
  40: 'handshake_failure',
  41: 'no_certificate',
  42: 'bad_certificate',
  43: 'unsupported_certificate',
  47: 'illegal_parameter',
  48: 'unknown_ca',
  50: 'decode_error',
  51: 'decrypt_error',
  60: 'export_restriction',
  70: 'protocol_version',
  71: 'insufficient_security',
  80: 'internal_error',
  86: 'inappropriate_fallback',
  90: 'user_canceled',
  100: 'no_renegotiation',
  109: 'missing_extension',
  110: 'unsupported_extension',
  112: 'unrecognized_name',
  120: 'no_application_protocol',
};

export function describeAlert(fragment: Buffer): string {
  if (fragment.length < 2) return 'a truncated alert';
  const level = fragment[0] === 2 ? 'fatal' : 'warning';
  return `${level} alert ${ALERT_DESCRIPTIONS[fragment[1]] ?? `#${fragment[1]}`}`;
}

export function versionName(version: number): string {
  switch (version) {
    case 0x0002:
      return 'SSLv2';
    case ProtocolVersion.ssl3:
      return 'SSLv3';
    case ProtocolVersion.tls10:
      return 'TLSv1.0';
    case ProtocolVersion.tls11:
      return 'TLSv1.1';
    case ProtocolVersion.tls12:
      return 'TLSv1.2';
    case ProtocolVersion.tls13:
      return 'TLSv1.3';
    default:
      return `0x${version.toString(16).padStart(4, '0')}`;
  }
}
