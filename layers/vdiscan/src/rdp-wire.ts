/**
 * The RDP messages vdiscan sends and reads past the negotiation (the negotiation itself is the
 * kit's rdp-negotiation.ts): the MCS Connect Initial with the client's core, cluster, security and
 * network data ([MS-RDPBCGR] 2.2.1.3, T.125, T.124), the server security data of the MCS Connect
 * Response (2.2.1.4.3), and CredSSP's first NTLM exchange ([MS-CSSP] 2.2.1, [MS-NLMP] 2.2.1.1 and
 * 2.2.1.2). The scan stops at the MCS Connect Response or the NTLM CHALLENGE: no Erect Domain,
 * no NTLM AUTHENTICATE, no credential of any kind.
 */
import { tpkt } from '../../engine-kit/src/rdp-negotiation.ts';

export class WireError extends Error {
  override readonly name = 'WireError';
}

/** encryptionMethod values ([MS-RDPBCGR] 2.2.1.3.3). */
export const ENCRYPTION_METHODS: Readonly<Record<number, string>> = {
  0: 'none',
  0x1: '40-bit RC4',
  0x2: '128-bit RC4',
  0x8: '56-bit RC4',
  0x10: 'FIPS 140-1 (3DES)',
};
/** encryptionLevel values ([MS-RDPBCGR] 2.2.1.4.3). */
export const ENCRYPTION_LEVELS: Readonly<Record<number, string>> = {
  0: 'NONE',
  1: 'LOW',
  2: 'CLIENT_COMPATIBLE',
  3: 'HIGH',
  4: 'FIPS',
};

/** A BER length. */
function berLength(length: number): Buffer {
  if (length < 0x80) return Buffer.from([length]);
  if (length < 0x100) return Buffer.from([0x81, length]);
  return Buffer.from([0x82, length >> 8, length & 0xff]);
}

/** A PER length (T.124's GCC encoding). */
function perLength(length: number): Buffer {
  return length < 0x80 ? Buffer.from([length]) : Buffer.from([0x80 | (length >> 8), length & 0xff]);
}

const ber = (tag: number[], body: Buffer): Buffer => Buffer.concat([Buffer.from(tag), berLength(body.length), body]);
const int = (value: number): Buffer => (value < 0x80 ? Buffer.from([0x02, 1, value]) : Buffer.from([0x02, 2, value >> 8, value & 0xff]));

function domainParameters(values: number[]): Buffer {
  return ber([0x30], Buffer.concat(values.map(int)));
}

function userDataBlock(type: number, body: Buffer): Buffer {
  const header = Buffer.alloc(4);
  header.writeUInt16LE(type, 0);
  header.writeUInt16LE(body.length + 4, 2);
  return Buffer.concat([header, body]);
}

/** TS_UD_CS_CORE: a plain 8-bit desktop; `selected` echoes the negotiation's selectedProtocol. */
function clientCore(selected: number): Buffer {
  const core = Buffer.alloc(212);
  core.writeUInt32LE(0x00080004, 0); // version: RDP 5.0 and later
  core.writeUInt16LE(1024, 4);
  core.writeUInt16LE(768, 6);
  core.writeUInt16LE(0xca01, 8); // colorDepth RNS_UD_COLOR_8BPP
  core.writeUInt16LE(0xaa03, 10); // SASSequence
  core.writeUInt32LE(0x409, 12); // keyboardLayout en-US
  core.writeUInt32LE(2600, 16); // clientBuild
  core.write('VDISCAN', 20, 'utf16le'); // clientName (32 bytes)
  core.writeUInt32LE(4, 52); // keyboardType
  core.writeUInt32LE(0, 56);
  core.writeUInt32LE(12, 60); // keyboardFunctionKey
  // imeFileName (64 bytes) stays empty.
  core.writeUInt16LE(0xca01, 128); // postBeta2ColorDepth
  core.writeUInt16LE(1, 130); // clientProductId
  core.writeUInt32LE(0, 132); // serialNumber
  core.writeUInt16LE(8, 136); // highColorDepth
  core.writeUInt16LE(0x7, 138); // supportedColorDepths
  core.writeUInt16LE(0x1, 140); // earlyCapabilityFlags: RNS_UD_CS_SUPPORT_ERRINFO_PDU
  // clientDigProductId (64 bytes), connectionType, pad1octet stay zero.
  core.writeUInt32LE(selected >>> 0, 208); // serverSelectedProtocol
  return core;
}

/** Every standard RDP encryption method a client can offer: the server picks by its level. */
export const ALL_METHODS = 0x1 | 0x2 | 0x8 | 0x10;

/** The MCS Connect Initial (in an X.224 Data TPDU and a TPKT) offering `methods`. */
export function mcsConnectInitial(selected: number, methods: number = ALL_METHODS): Buffer {
  const security = Buffer.alloc(8);
  security.writeUInt32LE(methods, 0);
  const cluster = Buffer.alloc(8);
  cluster.writeUInt32LE(0x09, 0);
  const net = Buffer.alloc(4); // channelCount 0: no virtual channel is asked for
  const userData = Buffer.concat([
    userDataBlock(0xc001, clientCore(selected)),
    userDataBlock(0xc004, cluster),
    userDataBlock(0xc002, security),
    userDataBlock(0xc003, net),
  ]);
  const conferenceCreate = Buffer.concat([
    Buffer.from('000800100001c00044756361', 'hex'), // ConnectGCCPDU conferenceCreateRequest, H.221 key "Duca"
    perLength(userData.length),
    userData,
  ]);
  const gcc = Buffer.concat([Buffer.from('000500147c0001', 'hex'), perLength(conferenceCreate.length), conferenceCreate]);
  const connectInitial = ber(
    [0x7f, 0x65],
    Buffer.concat([
      Buffer.from([0x04, 1, 1, 0x04, 1, 1, 0x01, 1, 0xff]),
      domainParameters([34, 2, 0, 1, 0, 1, 0xffff, 2]),
      domainParameters([1, 1, 1, 1, 0, 1, 0x420, 2]),
      domainParameters([0xffff, 0xfc17, 0xffff, 1, 0, 1, 0xffff, 2]),
      ber([0x04], gcc),
    ]),
  );
  return tpkt(Buffer.concat([Buffer.from([0x02, 0xf0, 0x80]), connectInitial]));
}

export interface ServerSecurity {
  method: number;
  level: number;
}

/**
 * The server security data (SC_SECURITY, 0x0C02) of an MCS Connect Response TPKT. The user data
 * blocks are found as a chain (SC_CORE first, each block's length leading to the next), so a byte
 * pair inside a certificate cannot pass for a header.
 */
export function parseMcsConnectResponse(message: Buffer): ServerSecurity {
  if (message.length < 10 || message[5] !== 0xf0 || message[7] !== 0x7f || message[8] !== 0x66) {
    throw new WireError('the answer to the MCS Connect Initial is not an MCS Connect Response');
  }
  for (let start = 9; start + 4 <= message.length; start += 1) {
    if (message.readUInt16LE(start) !== 0x0c01) continue;
    const blocks = new Map<number, Buffer>();
    let at = start;
    while (at + 4 <= message.length) {
      const type = message.readUInt16LE(at);
      const length = message.readUInt16LE(at + 2);
      if (length < 4 || at + length > message.length || (type & 0xff00) !== 0x0c00) break;
      blocks.set(type, message.subarray(at + 4, at + length));
      at += length;
    }
    if (at !== message.length || !blocks.has(0x0c02)) continue;
    const security = blocks.get(0x0c02)!;
    if (security.length < 8) throw new WireError('a truncated server security data block');
    return { method: security.readUInt32LE(0), level: security.readUInt32LE(4) };
  }
  throw new WireError('the MCS Connect Response carries no server security data');
}

/** NTLM NEGOTIATE flags: Unicode, OEM, request target, NTLM, always sign, extended session security, version, 128, key exchange, 56. */
const NEGOTIATE_FLAGS = 0xe20882b7;

/** The TSRequest (version 2) carrying an NTLM NEGOTIATE message with no domain or workstation. */
export function tsRequestWithNegotiate(): Buffer {
  const negotiate = Buffer.alloc(40);
  negotiate.write('NTLMSSP\0', 0, 'latin1');
  negotiate.writeUInt32LE(1, 8);
  negotiate.writeUInt32LE(NEGOTIATE_FLAGS, 12);
  // DomainNameFields and WorkstationFields (16 bytes) stay zero; Version: 10.0 build 0, NTLM revision 15.
  negotiate.writeUInt8(10, 32);
  negotiate.writeUInt8(0, 33);
  negotiate.writeUInt8(15, 39);
  const negoData = ber([0x30], ber([0x30], ber([0xa0], ber([0x04], negotiate))));
  return ber([0x30], Buffer.concat([ber([0xa0], int(2)), ber([0xa1], negoData)]));
}

/** A framer for a DER SEQUENCE (the TSRequest answer), capped at `max` bytes. */
export function derFramer(max: number) {
  return (buffer: Buffer): number | null => {
    if (buffer.length === 0) return null;
    if (buffer[0] !== 0x30) throw new WireError(`the CredSSP answer is not a TSRequest (starts with 0x${buffer[0].toString(16)})`);
    if (buffer.length < 2) return null;
    const first = buffer[1];
    let length: number;
    let header: number;
    if (first < 0x80) {
      length = first;
      header = 2;
    } else {
      const count = first & 0x7f;
      if (count === 0 || count > 3) throw new WireError(`a TSRequest with a length of ${count} bytes`);
      if (buffer.length < 2 + count) return null;
      length = buffer.readUIntBE(2, count);
      header = 2 + count;
    }
    if (header + length > max) throw new WireError(`a TSRequest of ${header + length} bytes, above the ${max} read`);
    return buffer.length >= header + length ? header + length : null;
  };
}

export interface NtlmChallenge {
  netbios_computer?: string;
  netbios_domain?: string;
  dns_computer?: string;
  dns_domain?: string;
  dns_tree?: string;
  /** `major.minor.build` from the challenge's Version field, when the server sends one. */
  os_version?: string;
  target_name?: string;
}

const AV_NAMES: Readonly<Record<number, keyof NtlmChallenge>> = {
  1: 'netbios_computer',
  2: 'netbios_domain',
  3: 'dns_computer',
  4: 'dns_domain',
  5: 'dns_tree',
};

/** The NTLM CHALLENGE found in a TSRequest answer: target name, target info names and version. */
export function parseNtlmChallenge(tsRequest: Buffer): NtlmChallenge {
  const at = tsRequest.indexOf(Buffer.from('NTLMSSP\0', 'latin1'));
  if (at < 0) throw new WireError('the CredSSP answer carries no NTLM message');
  const message = tsRequest.subarray(at);
  if (message.length < 48 || message.readUInt32LE(8) !== 2) throw new WireError('the CredSSP answer carries no NTLM CHALLENGE');
  const field = (offset: number): Buffer | undefined => {
    const length = message.readUInt16LE(offset);
    const start = message.readUInt32LE(offset + 4);
    if (length === 0) return undefined;
    if (start + length > message.length) throw new WireError('an NTLM CHALLENGE field points past the message');
    return message.subarray(start, start + length);
  };
  const out: NtlmChallenge = {};
  const flags = message.readUInt32LE(20);
  const unicode = (flags & 0x1) !== 0;
  const targetName = field(12);
  if (targetName) out.target_name = targetName.toString(unicode ? 'utf16le' : 'latin1');
  const info = field(40);
  for (let i = 0; info && i + 4 <= info.length;) {
    const id = info.readUInt16LE(i);
    const length = info.readUInt16LE(i + 2);
    if (id === 0) break;
    if (i + 4 + length > info.length) throw new WireError('an NTLM target info entry runs past its field');
    const name = AV_NAMES[id];
    if (name) out[name] = info.subarray(i + 4, i + 4 + length).toString('utf16le');
    i += 4 + length;
  }
  if ((flags & 0x02000000) !== 0 && message.length >= 56) {
    out.os_version = `${message[48]}.${message[49]}.${message.readUInt16LE(50)}`;
  }
  return out;
}
