/**
 * DIMSE commands in Implicit VR Little Endian (PS3.7 §9.3, §E): only C-ECHO-RQ and C-FIND-RQ are
 * ever built. C-STORE, C-MOVE and C-GET have no encoder here on purpose (DESIGN §22).
 */
import { uidBytes } from './pdu.ts';

export const VERIFICATION_SOP = '1.2.840.10008.1.1';
export const STUDY_ROOT_FIND = '1.2.840.10008.5.1.4.1.2.2.1';
export const PATIENT_ROOT_FIND = '1.2.840.10008.5.1.4.1.2.1.1';
/** Storage SOP classes proposed to test negotiation (CT, MR, Secondary Capture); nothing is ever stored. */
export const STORAGE_SOPS = ['1.2.840.10008.5.1.4.1.1.2', '1.2.840.10008.5.1.4.1.1.4', '1.2.840.10008.5.1.4.1.1.7'] as const;

const COMMAND = { cEchoRq: 0x0030, cEchoRsp: 0x8030, cFindRq: 0x0020, cFindRsp: 0x8020 } as const;
const NO_DATA_SET = 0x0101;

function element(group: number, elementNumber: number, value: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16LE(group, 0);
  head.writeUInt16LE(elementNumber, 2);
  head.writeUInt32LE(value.length, 4);
  return Buffer.concat([head, value]);
}

const us = (value: number): Buffer => {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16LE(value, 0);
  return buffer;
};

/** A text value padded to an even length with a space (PS3.5 §6.2). */
const text = (value: string): Buffer => {
  const bytes = Buffer.from(value, 'ascii');
  return bytes.length % 2 === 0 ? bytes : Buffer.concat([bytes, Buffer.from(' ')]);
};

function commandSet(elements: Buffer[]): Buffer {
  const rest = Buffer.concat(elements);
  const length = Buffer.alloc(4);
  length.writeUInt32LE(rest.length, 0);
  return Buffer.concat([element(0x0000, 0x0000, length), rest]);
}

export function cEchoRq(messageId: number): Buffer {
  return commandSet([
    element(0x0000, 0x0002, uidBytes(VERIFICATION_SOP)),
    element(0x0000, 0x0100, us(COMMAND.cEchoRq)),
    element(0x0000, 0x0110, us(messageId)),
    element(0x0000, 0x0800, us(NO_DATA_SET)),
  ]);
}

export function cFindRq(messageId: number, sopClass: string): Buffer {
  return commandSet([
    element(0x0000, 0x0002, uidBytes(sopClass)),
    element(0x0000, 0x0100, us(COMMAND.cFindRq)),
    element(0x0000, 0x0110, us(messageId)),
    element(0x0000, 0x0700, us(0)), // priority medium
    element(0x0000, 0x0800, us(0x0000)), // a data set follows
  ]);
}

/**
 * The C-FIND identifier: a random patient id as the only matching key, at STUDY level (study
 * root) or PATIENT level (patient root). The only return keys are the ones the query must carry.
 */
export function findIdentifier(patientId: string, level: 'STUDY' | 'PATIENT'): Buffer {
  const elements = [element(0x0008, 0x0052, text(level)), element(0x0010, 0x0020, text(patientId))];
  if (level === 'STUDY') elements.push(element(0x0020, 0x000d, Buffer.alloc(0)));
  return Buffer.concat(elements);
}

export interface CommandResponse {
  commandField: number;
  status: number;
  messageIdBeingRespondedTo?: number;
  hasDataSet: boolean;
}

/** The few elements of a response command set the scan reads; every other element is skipped unread. */
export function parseCommand(data: Buffer): CommandResponse {
  let offset = 0;
  let commandField = -1;
  let status = -1;
  let messageIdBeingRespondedTo: number | undefined;
  let dataSetType = NO_DATA_SET;
  while (offset + 8 <= data.length) {
    const group = data.readUInt16LE(offset);
    const elementNumber = data.readUInt16LE(offset + 2);
    const length = data.readUInt32LE(offset + 4);
    const value = data.subarray(offset + 8, offset + 8 + length);
    if (group === 0 && value.length >= 2) {
      if (elementNumber === 0x0100) commandField = value.readUInt16LE(0);
      if (elementNumber === 0x0900) status = value.readUInt16LE(0);
      if (elementNumber === 0x0120) messageIdBeingRespondedTo = value.readUInt16LE(0);
      if (elementNumber === 0x0800) dataSetType = value.readUInt16LE(0);
    }
    offset += 8 + length;
  }
  return { commandField, status, messageIdBeingRespondedTo, hasDataSet: dataSetType !== NO_DATA_SET };
}

export const RESPONSE = { cEcho: COMMAND.cEchoRsp, cFind: COMMAND.cFindRsp } as const;

/** PS3.7 C: 0x0000 success; 0xFF00/0xFF01 pending; 0xFE00 cancel; the rest are failures or warnings. */
export const isPending = (status: number): boolean => status === 0xff00 || status === 0xff01;
