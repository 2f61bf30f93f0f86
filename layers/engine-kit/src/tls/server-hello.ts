/**
 * Parsers for what a server answers a ClientHello with: ServerHello (and TLS 1.3's
 * HelloRetryRequest), Certificate, a DHE ServerKeyExchange's group, and SSLv2's SERVER-HELLO.
 */
import { Extension } from './client-hello.ts';
import { Cursor, NotTls } from './records.ts';

/** RFC 8446 §4.1.3: a ServerHello with this random is a HelloRetryRequest. */
const HELLO_RETRY_RANDOM = Buffer.from('cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c', 'hex');

export interface ServerHello {
  /** The negotiated version: supported_versions when present, else the legacy field. */
  version: number;
  suite: number;
  compression: number;
  helloRetry: boolean;
  /** Extension types the server sent, with their bodies. */
  extensions: Map<number, Buffer>;
}

export function parseServerHello(body: Buffer): ServerHello {
  const cursor = new Cursor(body, 'ServerHello');
  const legacyVersion = cursor.u16();
  const random = cursor.bytesOf(32);
  cursor.vector8();
  const suite = cursor.u16();
  const compression = cursor.u8();
  const extensions = new Map<number, Buffer>();
  if (cursor.remaining > 0) {
    const list = new Cursor(cursor.vector16(), 'ServerHello extensions');
    while (list.remaining > 0) {
      const type = list.u16();
      extensions.set(type, list.vector16());
    }
  }
  const selected = extensions.get(Extension.supportedVersions);
  const version = selected && selected.length === 2 ? selected.readUInt16BE(0) : legacyVersion;
  return { version, suite, compression, helloRetry: random.equals(HELLO_RETRY_RANDOM), extensions };
}

/** The DER certificates of a TLS 1.2-or-older Certificate message, leaf first. */
export function parseCertificateList(body: Buffer): Buffer[] {
  const list = new Cursor(new Cursor(body, 'Certificate').vector24(), 'certificate list');
  const certificates: Buffer[] = [];
  while (list.remaining > 0) certificates.push(list.vector24());
  return certificates;
}

/** Size in bits of a big-endian unsigned integer. */
export function bitLength(value: Buffer): number {
  let i = 0;
  while (i < value.length && value[i] === 0) i++;
  if (i === value.length) return 0;
  return (value.length - i - 1) * 8 + (32 - Math.clz32(value[i]));
}

/** The prime's size in a DHE ServerKeyExchange (RFC 5246 §7.4.3: dh_p comes first). */
export function dhGroupBits(serverKeyExchange: Buffer): number {
  return bitLength(new Cursor(serverKeyExchange, 'ServerKeyExchange').vector16());
}

export interface Sslv2ServerHello {
  cipherKinds: number[];
}

/**
 * An SSLv2 SERVER-HELLO from a record that starts with a 2-byte header (high bit set). Returns
 * null when the bytes are a TLS record or alert instead, the usual answer of a server without SSLv2.
 */
export function parseSslv2ServerHello(bytes: Buffer): Sslv2ServerHello | null {
  if (bytes.length < 2 || (bytes[0] & 0x80) === 0) return null;
  const length = ((bytes[0] & 0x7f) << 8) | bytes[1];
  const cursor = new Cursor(bytes.subarray(2, 2 + length), 'SSLv2 SERVER-HELLO');
  if (cursor.u8() !== 4) return null;
  cursor.u8(); // session id hit
  cursor.u8(); // certificate type
  const version = cursor.u16();
  if (version !== 0x0002) throw new NotTls(`an SSLv2 SERVER-HELLO with version 0x${version.toString(16)}`);
  const certificateLength = cursor.u16();
  const specsLength = cursor.u16();
  cursor.u16(); // connection id length
  cursor.bytesOf(certificateLength);
  const specs = cursor.bytesOf(specsLength);
  const cipherKinds: number[] = [];
  for (let i = 0; i + 3 <= specs.length; i += 3) cipherKinds.push(specs.readUIntBE(i, 3));
  return { cipherKinds };
}
