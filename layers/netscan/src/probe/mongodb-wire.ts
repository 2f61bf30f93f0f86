/**
 * MongoDB's OP_MSG (opcode 2013, MongoDB 3.6 and later): a 16-byte header, flag bits, and one
 * body section (kind 0) holding the command document; the reply has the same shape. Servers
 * older than 3.6 do not answer OP_MSG and are left unidentified (docs/netscan.md).
 */
import { decodeBson, encodeBson, type BsonDocument } from './bson.ts';

const OP_MSG = 2013;

/** A command as an OP_MSG request. */
export function opMsg(requestId: number, command: BsonDocument): Buffer {
  const body = encodeBson(command);
  const header = Buffer.alloc(16 + 4 + 1);
  header.writeInt32LE(header.length + body.length, 0);
  header.writeInt32LE(requestId, 4);
  header.writeInt32LE(0, 8);
  header.writeInt32LE(OP_MSG, 12);
  header.writeUInt32LE(0, 16);
  header[20] = 0;
  return Buffer.concat([header, body]);
}

/** The declared length of a reply whose header has arrived, or undefined before. */
export function replyLength(bytes: Buffer): number | undefined {
  return bytes.length >= 4 ? bytes.readInt32LE(0) : undefined;
}

/** The command reply document of a complete OP_MSG reply to `requestId`, or null when the bytes are not one. */
export function parseOpMsgReply(bytes: Buffer, requestId: number): BsonDocument | null {
  if (bytes.length < 21) return null;
  const length = bytes.readInt32LE(0);
  if (length !== bytes.length || bytes.readInt32LE(8) !== requestId || bytes.readInt32LE(12) !== OP_MSG) return null;
  if (bytes[20] !== 0) return null;
  try {
    return decodeBson(bytes, 21)[0];
  } catch {
    return null;
  }
}
