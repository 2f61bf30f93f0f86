import { describe, expect, it } from 'vitest';
import { PayloadTooLargeError } from '../../shared/domain/errors.ts';
import { bufferBody, bufferUpTo, primed } from '../../shared/http/response-stream.ts';

async function* chunks(...values: string[]): AsyncGenerator<string> {
  for (const value of values) yield value;
}

describe('bufferBody (a buffered Lambda answer)', () => {
  it('joins the chunks in order', async () => {
    expect(await bufferBody(chunks('a,b\r\n', '1,2\r\n', '3,4\r\n'), 'too large')).toBe('a,b\r\n1,2\r\n3,4\r\n');
  });

  it('counts the body as the JSON answer carries it, and refuses it past the limit with 413', async () => {
    // 10 characters, 20 bytes once JSON-encoded (each quote and line end escaped).
    const escaped = '""\r\n""\r\n""';
    await expect(bufferBody(chunks(escaped), 'narrow it', 19)).rejects.toThrow(new PayloadTooLargeError('narrow it'));
    expect(await bufferBody(chunks(escaped), 'narrow it', 20)).toBe(escaped);
  });
});

describe('bufferUpTo (a buffered answer that may overflow)', () => {
  it('answers the body while it stays within the limit', async () => {
    expect(await bufferUpTo(chunks('a,b\r\n', '1,2\r\n'), 100)).toEqual({ body: 'a,b\r\n1,2\r\n' });
  });

  it('past the limit gives every chunk back in order, those read and the rest, and stops the source when the reader stops', async () => {
    let closed = false;
    async function* pages(): AsyncGenerator<string> {
      try {
        for (const page of ['h\n', 'aaaa\n', 'bbbb\n', 'cccc\n', 'dddd\n']) yield page;
      } finally {
        closed = true;
      }
    }
    const full = await bufferUpTo(pages(), 8);
    if (!('overflow' in full)) throw new Error('expected an overflow');
    const seen: string[] = [];
    for await (const chunk of full.overflow) seen.push(chunk);
    expect(seen).toEqual(['h\n', 'aaaa\n', 'bbbb\n', 'cccc\n', 'dddd\n']);

    closed = false;
    const cut = await bufferUpTo(pages(), 8);
    if (!('overflow' in cut)) throw new Error('expected an overflow');
    for await (const chunk of cut.overflow) if (chunk === 'bbbb\n') break;
    expect(closed).toBe(true);
  });
});

describe('primed (a streamed answer)', () => {
  it('makes the first chunk before the answer starts, so its failure is the answer', async () => {
    async function* failing(): AsyncGenerator<string> {
      throw new Error('store down');
    }
    await expect(primed(failing())).rejects.toThrow('store down');
  });

  it('passes every chunk on, the first one once', async () => {
    const seen: string[] = [];
    for await (const chunk of await primed(chunks('h\r\n', 'a\r\n', 'b\r\n'))) seen.push(chunk);
    expect(seen).toEqual(['h\r\n', 'a\r\n', 'b\r\n']);
  });

  it('stops the source when the reader stops early', async () => {
    let made = 0;
    let closed = false;
    async function* pages(): AsyncGenerator<string> {
      try {
        for (;;) yield `page ${(made += 1)}`;
      } finally {
        closed = true;
      }
    }
    for await (const chunk of await primed(pages())) if (chunk === 'page 2') break;
    expect([made, closed]).toEqual([2, true]);
  });
});
