import { PayloadTooLargeError } from '../domain/errors.ts';

/**
 * A buffered Lambda answer is at most 6 MB of JSON, the body a string inside it: a buffered body
 * stops short of that (API Gateway's HTTP API does not stream Lambda answers).
 */
export const MAX_BUFFERED_BODY_BYTES = 5_500_000;

/**
 * The chunks as one body, for a server that sends a Lambda answer whole. Counted as the answer
 * carries it, JSON-encoded (a quote or line end is two bytes there), it fails with 413 `tooLarge`
 * past `limit` rather than answering a body cut short.
 */
export async function bufferBody(chunks: AsyncIterable<string>, tooLarge: string, limit = MAX_BUFFERED_BODY_BYTES): Promise<string> {
  const parts: string[] = [];
  let bytes = 0;
  for await (const chunk of chunks) {
    bytes += Buffer.byteLength(JSON.stringify(chunk)) - 2;
    if (bytes > limit) throw new PayloadTooLargeError(tooLarge);
    parts.push(chunk);
  }
  return parts.join('');
}

/**
 * The chunks with the first already made, for a server that streams: whatever fails before the
 * first chunk (a refused query, a store that is down) fails as an answer with its status, not as a
 * body cut off after a 200. A reader that stops early stops the source too.
 */
export async function primed(chunks: AsyncIterable<string>): Promise<AsyncIterable<string>> {
  const source = chunks[Symbol.asyncIterator]();
  const first = await source.next();
  async function* rest(): AsyncGenerator<string> {
    try {
      for (let next = first; !next.done; next = await source.next()) yield next.value;
    } finally {
      await source.return?.();
    }
  }
  return rest();
}
