/**
 * ClientHello messages built byte by byte, so tlsscan can offer any protocol version, suite,
 * compression method or extension whatever the local OpenSSL would send (SSLv2 and SSLv3, RC4,
 * EXPORT, DEFLATE, heartbeat). Nothing here is secret: key shares are random bytes, since a probe
 * never completes a handshake.
 */
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { ContentType, HandshakeType, ProtocolVersion, encodeHandshake, encodeRecord } from './records.ts';

export const Extension = {
  serverName: 0,
  supportedGroups: 10,
  ecPointFormats: 11,
  signatureAlgorithms: 13,
  heartbeat: 15,
  supportedVersions: 43,
  pskKeyExchangeModes: 45,
  keyShare: 51,
  renegotiationInfo: 0xff01,
} as const;

/** RFC 5746's signalling suite: a client that sends no extensions asks for secure renegotiation with it. */
export const EMPTY_RENEGOTIATION_INFO_SCSV = 0x00ff;

const X25519 = 29;
/**
 * Named curves only. Finite-field groups (RFC 7919) are left out of TLS 1.2-and-older hellos on
 * purpose: a server offered ffdhe2048 may use it instead of its configured DH group, which would
 * hide the weak group `tls.dh.weak_group` looks for.
 */
const CURVES = [X25519, 23, 24, 25, 30, 21, 22, 26, 27, 28];
const FFDHE = [256, 257, 258, 259, 260];
/** Every signature scheme a server might need to sign with, SHA-1 and DSA included. */
const SIGNATURE_SCHEMES = [
  0x0403, 0x0503, 0x0603, 0x0807, 0x0808, 0x0804, 0x0805, 0x0806, 0x0809, 0x080a, 0x080b, 0x0401, 0x0501, 0x0601, 0x0303, 0x0301, 0x0302,
  0x0402, 0x0203, 0x0201, 0x0202, 0x0101,
];

export interface ClientHelloOptions {
  /** The version to offer: SSLv3 to TLS 1.2 in client_version; TLS 1.3 through supported_versions. */
  version: number;
  suites: readonly number[];
  /** Server name to send; left out for IP addresses (RFC 6066 §3). */
  sni?: string;
  /** Offer DEFLATE before null (the compression check). */
  offerCompression?: boolean;
  /** Send the heartbeat extension (the Heartbleed probe). */
  heartbeat?: boolean;
}

function u16(value: number): Buffer {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(value, 0);
  return bytes;
}

function vector16(body: Buffer): Buffer {
  return Buffer.concat([u16(body.length), body]);
}

function vector8(body: Buffer): Buffer {
  return Buffer.concat([Buffer.from([body.length]), body]);
}

function list16(values: readonly number[]): Buffer {
  return Buffer.concat(values.map(u16));
}

function extension(type: number, body: Buffer): Buffer {
  return Buffer.concat([u16(type), vector16(body)]);
}

function serverNameExtension(name: string): Buffer {
  const host = Buffer.from(name, 'ascii');
  const entry = Buffer.concat([Buffer.from([0]), vector16(host)]);
  return extension(Extension.serverName, vector16(entry));
}

function extensionsFor(options: ClientHelloOptions): Buffer[] {
  const tls13 = options.version === ProtocolVersion.tls13;
  const extensions: Buffer[] = [];
  if (options.sni && isIP(options.sni) === 0) extensions.push(serverNameExtension(options.sni));
  extensions.push(extension(Extension.supportedGroups, vector16(list16(tls13 ? [...CURVES, ...FFDHE] : CURVES))));
  extensions.push(extension(Extension.ecPointFormats, vector8(Buffer.from([0]))));
  if (options.version >= ProtocolVersion.tls12) {
    extensions.push(extension(Extension.signatureAlgorithms, vector16(list16(SIGNATURE_SCHEMES))));
  }
  if (options.heartbeat) extensions.push(extension(Extension.heartbeat, Buffer.from([1])));
  if (tls13) {
    extensions.push(extension(Extension.supportedVersions, vector8(list16([ProtocolVersion.tls13]))));
    extensions.push(extension(Extension.pskKeyExchangeModes, vector8(Buffer.from([1]))));
    const share = Buffer.concat([u16(X25519), vector16(randomBytes(32))]);
    extensions.push(extension(Extension.keyShare, vector16(share)));
  } else {
    extensions.push(extension(Extension.renegotiationInfo, Buffer.from([0])));
  }
  return extensions;
}

/** The ClientHello handshake message body. */
export function clientHelloBody(options: ClientHelloOptions): Buffer {
  const ssl3 = options.version === ProtocolVersion.ssl3;
  // SSLv3 hellos carry no extensions (an SSLv3-only server may reject them); the SCSV asks for
  // secure renegotiation instead (RFC 5746 §3.3).
  const suites = ssl3 ? [...options.suites, EMPTY_RENEGOTIATION_INFO_SCSV] : options.suites;
  const parts = [
    u16(Math.min(options.version, ProtocolVersion.tls12)),
    randomBytes(32),
    vector8(randomBytes(32)),
    vector16(list16(suites)),
    vector8(Buffer.from(options.offerCompression ? [1, 0] : [0])),
  ];
  if (!ssl3) parts.push(vector16(Buffer.concat(extensionsFor(options))));
  return Buffer.concat(parts);
}

/** The ClientHello as one record, ready to write. */
export function clientHelloRecord(options: ClientHelloOptions): Buffer {
  const recordVersion = options.version === ProtocolVersion.ssl3 ? ProtocolVersion.ssl3 : ProtocolVersion.tls10;
  return encodeRecord(ContentType.handshake, recordVersion, encodeHandshake(HandshakeType.clientHello, clientHelloBody(options)));
}

/** An SSLv2 CLIENT-HELLO (draft-hickman-netscape-ssl-00 §4.1) offering `cipherKinds`. */
export function sslv2ClientHello(cipherKinds: readonly number[]): Buffer {
  const specs = Buffer.alloc(cipherKinds.length * 3);
  cipherKinds.forEach((kind, i) => specs.writeUIntBE(kind, i * 3, 3));
  const challenge = randomBytes(16);
  const body = Buffer.concat([Buffer.from([1]), u16(0x0002), u16(specs.length), u16(0), u16(challenge.length), specs, challenge]);
  return Buffer.concat([u16(0x8000 | body.length), body]);
}

/**
 * A heartbeat request whose payload_length claims `claimed` bytes and carries none (RFC 6520 says a
 * receiver must discard it; a Heartbleed server copies `claimed` bytes of its memory back instead).
 */
export function malformedHeartbeat(version: number, claimed: number): Buffer {
  const message = Buffer.concat([Buffer.from([1]), u16(claimed)]);
  return encodeRecord(ContentType.heartbeat, version, message);
}
