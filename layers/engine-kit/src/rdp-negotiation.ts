/**
 * RDP's first exchange ([MS-RDPBCGR] 2.2.1.1 and 2.2.1.2): an X.224 Connection Request carrying an
 * RDP Negotiation Request, and the server's Connection Confirm carrying a Negotiation Response
 * (`selectedProtocol`) or a Negotiation Failure (`failureCode`). Shared by tlsscan's `rdp` preamble
 * (TLS on RDP) and vdiscan's security verdicts, so both read one parser. TPKT framing (RFC 1006) is
 * bounded: a length under 7 or over `MAX_TPKT` is a protocol error, never a buffer to fill.
 */

/** requestedProtocols / selectedProtocol flags. */
export const RdpProtocol = {
  rdp: 0x0,
  ssl: 0x1,
  hybrid: 0x2,
  rdstls: 0x4,
  hybridEx: 0x8,
  rdsaad: 0x10,
} as const;

/** RDP_NEG_FAILURE failureCode names ([MS-RDPBCGR] 2.2.1.2.2). */
export const RDP_FAILURE_CODES: Readonly<Record<number, string>> = {
  1: 'SSL_REQUIRED_BY_SERVER',
  2: 'SSL_NOT_ALLOWED_BY_SERVER',
  3: 'SSL_CERT_NOT_ON_SERVER',
  4: 'INCONSISTENT_FLAGS',
  5: 'HYBRID_REQUIRED_BY_SERVER',
  6: 'SSL_WITH_USER_AUTH_REQUIRED_BY_SERVER',
};

export const HYBRID_REQUIRED_BY_SERVER = 5;

/** The largest TPKT an RDP peer is allowed to send us before the MCS response (bytes). */
export const MAX_TPKT = 16 * 1024;

export class RdpProtocolError extends Error {
  override readonly name = 'RdpProtocolError';
}

/** The names of the protocols in a requestedProtocols / selectedProtocol value. */
export function protocolNames(value: number): string[] {
  if (value === 0) return ['RDP'];
  const names: Array<[number, string]> = [
    [RdpProtocol.ssl, 'TLS'],
    [RdpProtocol.hybrid, 'CredSSP'],
    [RdpProtocol.rdstls, 'RDSTLS'],
    [RdpProtocol.hybridEx, 'CredSSP-EX'],
    [RdpProtocol.rdsaad, 'RDSAAD'],
  ];
  const out = names.filter(([bit]) => (value & bit) !== 0).map(([, name]) => name);
  const unknown = value & ~0x1f;
  if (unknown !== 0) out.push(`0x${unknown.toString(16)}`);
  return out;
}

/** The X.224 Connection Request with an RDP_NEG_REQ for `requested` (no cookie, no routing token). */
export function connectionRequest(requested: number): Buffer {
  const negReq = Buffer.alloc(8);
  negReq.writeUInt8(0x01, 0); // TYPE_RDP_NEG_REQ
  negReq.writeUInt8(0x00, 1);
  negReq.writeUInt16LE(8, 2);
  negReq.writeUInt32LE(requested >>> 0, 4);
  // X.224 CR TPDU: LI, CR CDT (0xE0), DST-REF, SRC-REF, class 0.
  const x224 = Buffer.from([6 + negReq.length, 0xe0, 0, 0, 0, 0, 0]);
  return tpkt(Buffer.concat([x224, negReq]));
}

/** Wraps a payload in a TPKT header (version 3). */
export function tpkt(payload: Buffer): Buffer {
  const header = Buffer.from([3, 0, 0, 0]);
  header.writeUInt16BE(payload.length + 4, 2);
  return Buffer.concat([header, payload]);
}

/**
 * A framer for SocketReader: the length of the first whole TPKT in `buffer`, or null to wait.
 * Throws RdpProtocolError on anything that is not a TPKT or is out of bounds.
 */
export function tpktFramer(buffer: Buffer): number | null {
  if (buffer.length === 0) return null;
  if (buffer[0] !== 3)
    throw new RdpProtocolError(`not RDP: the answer starts with 0x${buffer[0].toString(16).padStart(2, '0')}, not a TPKT header`);
  if (buffer.length < 4) return null;
  const length = buffer.readUInt16BE(2);
  if (length < 7) throw new RdpProtocolError(`not RDP: a TPKT length of ${length}`);
  if (length > MAX_TPKT)
    throw new RdpProtocolError(`a TPKT length of ${length} bytes, above the ${MAX_TPKT} this scanner reads before the MCS response`);
  return buffer.length >= length ? length : null;
}

export type NegotiationAnswer =
  /** RDP_NEG_RSP: the server chose `selected`. */
  | { kind: 'selected'; selected: number; flags: number }
  /** RDP_NEG_FAILURE. */
  | { kind: 'failure'; code: number; name: string }
  /** A Connection Confirm without negotiation data: a server that predates negotiation, standard RDP security. */
  | { kind: 'legacy' };

/** Parses the Connection Confirm TPKT (the whole TPKT, as tpktFramer cut it). */
export function parseConnectionConfirm(message: Buffer): NegotiationAnswer {
  const li = message[4];
  if (message.length < 11 || li < 6 || 5 + li > message.length) throw new RdpProtocolError('a truncated X.224 Connection Confirm');
  if ((message[5] & 0xf0) !== 0xd0)
    throw new RdpProtocolError(`an X.224 TPDU of type 0x${message[5].toString(16)}, not a Connection Confirm`);
  const variable = message.subarray(11, 5 + li);
  if (variable.length === 0) return { kind: 'legacy' };
  if (variable.length < 8) throw new RdpProtocolError('a truncated RDP negotiation response');
  const type = variable[0];
  const flags = variable[1];
  const length = variable.readUInt16LE(2);
  if (length !== 8) throw new RdpProtocolError(`an RDP negotiation structure of length ${length}, not 8`);
  const value = variable.readUInt32LE(4);
  if (type === 0x02) return { kind: 'selected', selected: value, flags };
  if (type === 0x03) return { kind: 'failure', code: value, name: RDP_FAILURE_CODES[value] ?? `failure code ${value}` };
  throw new RdpProtocolError(`an RDP negotiation structure of type ${type}`);
}

/** The answer in words, for evidence and details. */
export function describeAnswer(answer: NegotiationAnswer): string {
  switch (answer.kind) {
    case 'selected':
      return `selectedProtocol ${answer.selected} (${protocolNames(answer.selected).join('+')})`;
    case 'failure':
      return `failureCode ${answer.code} (${answer.name})`;
    case 'legacy':
      return 'a Connection Confirm without negotiation data (standard RDP security)';
  }
}
