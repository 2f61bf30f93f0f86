/**
 * Git's pkt-line framing (gitprotocol-common): four hex digits of length (the four included), then
 * the payload; `0000` is a flush, `0001` a delimiter, `0002` a response end.
 */
export type Packet = { kind: 'data'; payload: Buffer } | { kind: 'flush' } | { kind: 'delim' } | { kind: 'end' };

/** The response does not frame as pkt-lines: not a Git smart-HTTP server, or a cut response. */
export class PktLineError extends Error {
  override readonly name = 'PktLineError';
}

const MAX_PACKET = 65_520;

export function pktLine(text: string | Buffer): Buffer {
  const payload = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
  if (payload.length + 4 > MAX_PACKET) throw new PktLineError('pkt-line too long');
  return Buffer.concat([Buffer.from((payload.length + 4).toString(16).padStart(4, '0'), 'ascii'), payload]);
}

export const FLUSH = Buffer.from('0000', 'ascii');

/** Packets from a byte stream, whatever its chunking; a stream that ends inside a packet throws. */
export async function* readPackets(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Packet> {
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of chunks) {
    pending = pending.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([pending, chunk]);
    let at = 0;
    while (pending.length - at >= 4) {
      const length = Number.parseInt(pending.toString('ascii', at, at + 4), 16);
      if (!/^[0-9a-f]{4}$/i.test(pending.toString('ascii', at, at + 4)) || length === 3 || length > MAX_PACKET) {
        throw new PktLineError('not a pkt-line stream');
      }
      if (length < 4) {
        yield length === 0 ? { kind: 'flush' } : length === 1 ? { kind: 'delim' } : { kind: 'end' };
        at += 4;
        continue;
      }
      if (pending.length - at < length) break;
      yield { kind: 'data', payload: pending.subarray(at + 4, at + length) };
      at += length;
    }
    pending = at === pending.length ? Buffer.alloc(0) : Buffer.from(pending.subarray(at));
  }
  if (pending.length > 0) throw new PktLineError('the response ends inside a pkt-line');
}

/** A data packet's text without its trailing newline. */
export function packetText(packet: Packet): string | null {
  if (packet.kind !== 'data') return null;
  const text = packet.payload.toString('utf8');
  return text.endsWith('\n') ? text.slice(0, -1) : text;
}
