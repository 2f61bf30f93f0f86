/**
 * DICOM Upper Layer PDUs (PS3.8 §9.3): what the scan sends (A-ASSOCIATE-RQ, P-DATA-TF, A-RELEASE-RQ,
 * A-ABORT) and reads (A-ASSOCIATE-AC/RJ, P-DATA-TF, A-RELEASE-RP, A-ABORT). Reading is bounded: the
 * framer refuses a PDU longer than the scan's cap instead of waiting for it, whatever length the
 * peer declares (a 4 GB PDU length is an error, not an allocation).
 */
export const PDU = { associateRq: 1, associateAc: 2, associateRj: 3, pData: 4, releaseRq: 5, releaseRp: 6, abort: 7 } as const;

export const APPLICATION_CONTEXT = '1.2.840.10008.3.1.1.1';
export const IMPLICIT_VR_LE = '1.2.840.10008.1.2';
export const EXPLICIT_VR_LE = '1.2.840.10008.1.2.1';
/** The scan's implementation class UID (PS3.7 D.3.3.2): under the 2.25 UUID arc, fixed per engine. */
export const IMPLEMENTATION_CLASS_UID = '2.25.184468790183931093718201786235405197321';
export const IMPLEMENTATION_VERSION = 'MEDSCAN_010';
/** The largest P-DATA PDU the scan accepts from a peer, and declares it accepts. */
export const MAX_RECEIVE_PDU = 64 * 1024;

export class PduError extends Error {
  override readonly name: string = 'PduError';
}

/** The peer sent an A-ABORT in the middle of an association (Orthanc does, to refuse a C-FIND from a peer it does not know). */
export class PeerAborted extends PduError {
  override readonly name = 'PeerAborted';
}

export interface PresentationContextRq {
  id: number;
  abstractSyntax: string;
  transferSyntaxes: readonly string[];
}

/** A UID as a DICOM value: padded to an even length with NUL (PS3.5 §9.1). */
export function uidBytes(uid: string): Buffer {
  const text = Buffer.from(uid, 'ascii');
  return text.length % 2 === 0 ? text : Buffer.concat([text, Buffer.from([0])]);
}

function item(type: number, body: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt8(type, 0);
  head.writeUInt16BE(body.length, 2);
  return Buffer.concat([head, body]);
}

function pdu(type: number, body: Buffer): Buffer {
  const head = Buffer.alloc(6);
  head.writeUInt8(type, 0);
  head.writeUInt32BE(body.length, 2);
  return Buffer.concat([head, body]);
}

function aeField(title: string): Buffer {
  return Buffer.from(title.padEnd(16, ' ').slice(0, 16), 'ascii');
}

export function associateRq(calledAe: string, callingAe: string, contexts: readonly PresentationContextRq[]): Buffer {
  const fixed = Buffer.alloc(68);
  fixed.writeUInt16BE(1, 0); // protocol version
  aeField(calledAe).copy(fixed, 4);
  aeField(callingAe).copy(fixed, 20);
  const maxLength = Buffer.alloc(4);
  maxLength.writeUInt32BE(MAX_RECEIVE_PDU, 0);
  const items = [
    item(0x10, Buffer.from(APPLICATION_CONTEXT, 'ascii')),
    ...contexts.map((context) =>
      item(
        0x20,
        Buffer.concat([
          Buffer.from([context.id, 0, 0, 0]),
          item(0x30, Buffer.from(context.abstractSyntax, 'ascii')),
          ...context.transferSyntaxes.map((syntax) => item(0x40, Buffer.from(syntax, 'ascii'))),
        ]),
      ),
    ),
    item(
      0x50,
      Buffer.concat([
        item(0x51, maxLength),
        item(0x52, Buffer.from(IMPLEMENTATION_CLASS_UID, 'ascii')),
        item(0x55, Buffer.from(IMPLEMENTATION_VERSION, 'ascii')),
      ]),
    ),
  ];
  return pdu(PDU.associateRq, Buffer.concat([fixed, ...items]));
}

/** One P-DATA-TF carrying one complete PDV (command or data set, last fragment). */
export function pDataTf(contextId: number, isCommand: boolean, data: Buffer): Buffer {
  const head = Buffer.alloc(6);
  head.writeUInt32BE(data.length + 2, 0);
  head.writeUInt8(contextId, 4);
  head.writeUInt8((isCommand ? 1 : 0) | 2, 5);
  return pdu(PDU.pData, Buffer.concat([head, data]));
}

export const releaseRq = (): Buffer => pdu(PDU.releaseRq, Buffer.alloc(4));
export const abortPdu = (): Buffer => pdu(PDU.abort, Buffer.alloc(4));

/** A framer for SocketReader: one whole PDU, refusing any PDU longer than `maxLength` before it arrives. */
export function pduFramer(maxLength: number): (buffer: Buffer) => number | null {
  return (buffer) => {
    if (buffer.length < 6) return null;
    const type = buffer.readUInt8(0);
    if (type < 1 || type > 7)
      throw new PduError(`the peer sent something that is not a DICOM PDU (first byte 0x${type.toString(16).padStart(2, '0')})`);
    const length = buffer.readUInt32BE(2);
    if (length > maxLength) throw new PduError(`the peer announced a ${length}-byte PDU, more than the ${maxLength} bytes accepted`);
    return buffer.length >= 6 + length ? 6 + length : null;
  };
}

export interface AcceptedContext {
  id: number;
  /** 0 acceptance, 1 user rejection, 2 no reason, 3 abstract syntax not supported, 4 transfer syntaxes not supported. */
  result: number;
  transferSyntax?: string;
}

export type AssociationAnswer =
  | { kind: 'accepted'; calledAe: string; maxPduLength: number; contexts: AcceptedContext[]; implementationVersion?: string }
  | { kind: 'rejected'; result: number; source: number; reason: number }
  | { kind: 'aborted'; source: number; reason: number };

function readItems(body: Buffer, at: number, onItem: (type: number, value: Buffer) => void): void {
  let offset = at;
  while (offset < body.length) {
    if (offset + 4 > body.length) throw new PduError('a truncated item in the association answer');
    const type = body.readUInt8(offset);
    const length = body.readUInt16BE(offset + 2);
    if (offset + 4 + length > body.length) throw new PduError('an item longer than its PDU in the association answer');
    onItem(type, body.subarray(offset + 4, offset + 4 + length));
    offset += 4 + length;
  }
}

const ascii = (value: Buffer): string => value.toString('latin1').replace(/[\0 ]+$/, '');

/** The answer to an A-ASSOCIATE-RQ: AC, RJ or an A-ABORT; anything else is a PduError. */
export function parseAssociationAnswer(message: Buffer): AssociationAnswer {
  const type = message.readUInt8(0);
  const body = message.subarray(6);
  if (type === PDU.associateRj) {
    if (body.length < 4) throw new PduError('a truncated A-ASSOCIATE-RJ');
    return { kind: 'rejected', result: body.readUInt8(1), source: body.readUInt8(2), reason: body.readUInt8(3) };
  }
  if (type === PDU.abort) {
    if (body.length < 4) throw new PduError('a truncated A-ABORT');
    return { kind: 'aborted', source: body.readUInt8(2), reason: body.readUInt8(3) };
  }
  if (type !== PDU.associateAc) throw new PduError(`the peer answered the association request with PDU type ${type}`);
  if (body.length < 68) throw new PduError('a truncated A-ASSOCIATE-AC');
  const contexts: AcceptedContext[] = [];
  let maxPduLength = 0;
  let implementationVersion: string | undefined;
  readItems(body, 68, (itemType, value) => {
    if (itemType === 0x21) {
      if (value.length < 4) throw new PduError('a truncated presentation context in the A-ASSOCIATE-AC');
      const context: AcceptedContext = { id: value.readUInt8(0), result: value.readUInt8(2) };
      readItems(value, 4, (subType, subValue) => {
        if (subType === 0x40) context.transferSyntax = ascii(subValue);
      });
      contexts.push(context);
    } else if (itemType === 0x50) {
      readItems(value, 0, (subType, subValue) => {
        if (subType === 0x51 && subValue.length === 4) maxPduLength = subValue.readUInt32BE(0);
        if (subType === 0x55) implementationVersion = ascii(subValue).slice(0, 16);
      });
    }
  });
  return { kind: 'accepted', calledAe: ascii(body.subarray(4, 20)), maxPduLength, contexts, implementationVersion };
}

export interface Pdv {
  contextId: number;
  isCommand: boolean;
  isLast: boolean;
  data: Buffer;
}

export function parsePData(message: Buffer): Pdv[] {
  const body = message.subarray(6);
  const pdvs: Pdv[] = [];
  let offset = 0;
  while (offset < body.length) {
    if (offset + 6 > body.length) throw new PduError('a truncated PDV');
    const length = body.readUInt32BE(offset);
    if (length < 2 || offset + 4 + length > body.length) throw new PduError('a PDV longer than its PDU');
    const control = body.readUInt8(offset + 5);
    pdvs.push({
      contextId: body.readUInt8(offset + 4),
      isCommand: (control & 1) === 1,
      isLast: (control & 2) === 2,
      data: body.subarray(offset + 6, offset + 4 + length),
    });
    offset += 4 + length;
  }
  return pdvs;
}
