/**
 * The part of BSON (bsonspec.org) the MongoDB probes need: encode a small command document
 * (strings, numbers, booleans, nested documents) and decode a reply into plain values. Types a
 * reply may carry that the probes never read (ObjectId, dates, binary, timestamps, int64) decode to
 * a placeholder or a number; an unknown type is an error, never a guess.
 */
export type BsonValue = string | number | boolean | null | BsonDocument | BsonValue[] | bigint;
export interface BsonDocument {
  [key: string]: BsonValue;
}

/** A reply that is not well-formed BSON. */
export class BsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BsonError';
  }
}

function cstring(text: string): Buffer {
  if (text.includes('\0')) throw new BsonError('a key holds NUL');
  return Buffer.concat([Buffer.from(text, 'utf8'), Buffer.from([0])]);
}

function element(key: string, value: BsonValue): Buffer {
  if (typeof value === 'string') {
    const bytes = Buffer.from(value, 'utf8');
    const length = Buffer.alloc(4);
    length.writeInt32LE(bytes.length + 1);
    return Buffer.concat([Buffer.from([0x02]), cstring(key), length, bytes, Buffer.from([0])]);
  }
  if (typeof value === 'boolean') return Buffer.concat([Buffer.from([0x08]), cstring(key), Buffer.from([value ? 1 : 0])]);
  if (typeof value === 'number') {
    if (Number.isInteger(value) && value >= -(2 ** 31) && value < 2 ** 31) {
      const body = Buffer.alloc(4);
      body.writeInt32LE(value);
      return Buffer.concat([Buffer.from([0x10]), cstring(key), body]);
    }
    const body = Buffer.alloc(8);
    body.writeDoubleLE(value);
    return Buffer.concat([Buffer.from([0x01]), cstring(key), body]);
  }
  if (Array.isArray(value)) {
    return Buffer.concat([Buffer.from([0x04]), cstring(key), encodeBson(Object.fromEntries(value.map((item, i) => [String(i), item])))]);
  }
  if (value !== null && typeof value === 'object' && typeof value !== 'bigint') {
    return Buffer.concat([Buffer.from([0x03]), cstring(key), encodeBson(value)]);
  }
  throw new BsonError(`cannot encode ${key}`);
}

/** A document as BSON bytes. */
export function encodeBson(doc: BsonDocument): Buffer {
  const body = Buffer.concat(Object.entries(doc).map(([key, value]) => element(key, value)));
  const out = Buffer.alloc(4 + body.length + 1);
  out.writeInt32LE(out.length);
  body.copy(out, 4);
  return out;
}

function readCString(bytes: Buffer, at: number): [string, number] {
  const end = bytes.indexOf(0, at);
  if (end === -1) throw new BsonError('unterminated key');
  return [bytes.toString('utf8', at, end), end + 1];
}

function need(bytes: Buffer, at: number, n: number): void {
  if (at + n > bytes.length) throw new BsonError('truncated document');
}

/** Decodes one document starting at `at`; returns it and the offset after it. */
export function decodeBson(bytes: Buffer, at = 0, depth = 0): [BsonDocument, number] {
  if (depth > 32) throw new BsonError('nested too deep');
  need(bytes, at, 5);
  const length = bytes.readInt32LE(at);
  if (length < 5) throw new BsonError('bad document length');
  need(bytes, at, length);
  const end = at + length - 1;
  if (bytes[end] !== 0) throw new BsonError('document not NUL-terminated');
  const doc: BsonDocument = {};
  let pos = at + 4;
  while (pos < end) {
    const type = bytes[pos];
    let key: string;
    [key, pos] = readCString(bytes, pos + 1);
    let value: BsonValue;
    switch (type) {
      case 0x01:
        need(bytes, pos, 8);
        value = bytes.readDoubleLE(pos);
        pos += 8;
        break;
      case 0x02:
      case 0x0d:
      case 0x0e: {
        need(bytes, pos, 4);
        const n = bytes.readInt32LE(pos);
        if (n < 1) throw new BsonError('bad string length');
        need(bytes, pos + 4, n);
        value = bytes.toString('utf8', pos + 4, pos + 4 + n - 1);
        pos += 4 + n;
        break;
      }
      case 0x03:
      case 0x04: {
        const [inner, next] = decodeBson(bytes, pos, depth + 1);
        value = type === 0x04 ? Object.values(inner) : inner;
        pos = next;
        break;
      }
      case 0x05: {
        need(bytes, pos, 5);
        const n = bytes.readInt32LE(pos);
        need(bytes, pos + 5, n);
        value = `<binary ${n} bytes>`;
        pos += 5 + n;
        break;
      }
      case 0x07:
        need(bytes, pos, 12);
        value = bytes.toString('hex', pos, pos + 12);
        pos += 12;
        break;
      case 0x08:
        need(bytes, pos, 1);
        value = bytes[pos] !== 0;
        pos += 1;
        break;
      case 0x09:
      case 0x11:
      case 0x12:
        need(bytes, pos, 8);
        value = type === 0x09 ? Number(bytes.readBigInt64LE(pos)) : bytes.readBigInt64LE(pos);
        pos += 8;
        break;
      case 0x0a:
        value = null;
        break;
      case 0x10:
        need(bytes, pos, 4);
        value = bytes.readInt32LE(pos);
        pos += 4;
        break;
      default:
        throw new BsonError(`unsupported element type 0x${type.toString(16)}`);
    }
    doc[key] = value;
  }
  return [doc, at + length];
}
