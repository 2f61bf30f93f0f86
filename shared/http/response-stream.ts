import { PayloadTooLargeError } from '../domain/errors.ts';

/**
 * A buffered Lambda answer is at most 6 MB of JSON, the body a string inside it: a buffered body
 * stops short of that (API Gateway's HTTP API does not stream Lambda answers).
 */
export const MAX_BUFFERED_BODY_BYTES = 5_500_000;

/** What bufferUpTo found: the whole body, or a body too large to answer with every chunk still to come. */
export type Buffered = { body: string } | { overflow: AsyncIterable<string> };

/**
 * The chunks as one body while it stays within `limit`, counted as a Lambda answer carries it,
 * JSON-encoded (a quote or line end is two bytes there). Past it, the chunks as a stream again:
 * those already read, then the rest of the source (closed when the reader stops). The function
 * holds at most the limit plus one chunk.
 */
export async function bufferUpTo(chunks: AsyncIterable<string>, limit = MAX_BUFFERED_BODY_BYTES): Promise<Buffered> {
  const source = chunks[Symbol.asyncIterator]();
  const { held, over } = await readUpTo(source, limit);
  return over ? { overflow: resumed(held, source) } : { body: held.join('') };
}

async function readUpTo(source: AsyncIterator<string>, limit: number): Promise<{ held: string[]; over: boolean }> {
  const held: string[] = [];
  let bytes = 0;
  for (let next = await source.next(); !next.done; next = await source.next()) {
    held.push(next.value);
    bytes += Buffer.byteLength(JSON.stringify(next.value)) - 2;
    if (bytes > limit) return { held, over: true };
  }
  return { held, over: false };
}

async function* resumed(held: string[], source: AsyncIterator<string>): AsyncGenerator<string> {
  try {
    // Shifted off as they go, so a chunk is released once its reader has it.
    while (held.length > 0) yield held.shift() as string;
    for (let next = await source.next(); !next.done; next = await source.next()) yield next.value;
  } finally {
    await source.return?.();
  }
}

/**
 * The chunks as one body, for a server that sends a Lambda answer whole: past `limit` it stops
 * the source and fails with 413 `tooLarge` rather than answering a body cut short.
 */
export async function bufferBody(chunks: AsyncIterable<string>, tooLarge: string, limit = MAX_BUFFERED_BODY_BYTES): Promise<string> {
  const source = chunks[Symbol.asyncIterator]();
  const { held, over } = await readUpTo(source, limit);
  if (!over) return held.join('');
  await source.return?.();
  throw new PayloadTooLargeError(tooLarge);
}

/**
 * The chunks with the first already made, for a server that streams: whatever fails before the
 * first chunk (a refused query, a store that is down) fails as an answer with its status, not as a
 * body cut off after a 200. A reader that stops early stops the source too.
 */
export async function primed(chunks: AsyncIterable<string>): Promise<AsyncIterable<string>> {
  const source = chunks[Symbol.asyncIterator]();
  const first = await source.next();
  return resumed(first.done ? [] : [first.value], source);
}
