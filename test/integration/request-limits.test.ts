import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/local-service.ts';

const BODY_BYTES = 100 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

/**
 * Sends a request with a 100 MB body as fast as the server takes it, and stops as soon as an answer
 * arrives: the answer's status line and how many body bytes the server had taken by then (at most
 * what the two kernels' socket buffers hold beyond what the server read).
 */
function sendHugeBody(url: string, headers: Record<string, string>): Promise<{ status: number; sent: number; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let sent = 0;
    let answer = '';
    let answered = false;
    socket.on('error', (error: NodeJS.ErrnoException) =>
      answered || error.code === 'EPIPE' || error.code === 'ECONNRESET' ? undefined : reject(error),
    );
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1');
      answered = true;
    });
    socket.on('close', () => {
      // The JSON error body, whatever the framing (the answer may be chunked).
      const body = answer.slice(answer.indexOf('{'), answer.lastIndexOf('}') + 1);
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0), sent, body });
    });
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
    socket.write(`POST /api/scans/schedules/ HTTP/1.1\r\nhost: ${hostname}\r\n${lines.join('\r\n')}\r\n\r\n`);
    const chunked = headers['transfer-encoding'] === 'chunked';
    const piece = chunked ? Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from('\r\n')]) : CHUNK;
    const pump = () => {
      while (!answered && sent < BODY_BYTES) {
        sent += CHUNK.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    pump();
  });
}

describe('a body far over the limit', () => {
  let service: TestService;
  let token: string;

  beforeAll(async () => {
    service = await startTestService();
    token = await service.token('limits', 'admin');
  });
  afterAll(() => service.stop());

  it.each([
    ['with its length declared, authenticated', true, 413, 'payload_too_large'],
    ['with its length declared, unauthenticated', false, 401, 'unauthenticated'],
  ] as const)('is answered without being read to its end (%s)', async (_name, authenticated, status, code) => {
    const reply = await sendHugeBody(service.runtime.url, {
      'content-type': 'application/json',
      'content-length': String(BODY_BYTES),
      ...(authenticated ? { authorization: `Bearer ${token}` } : {}),
    });

    expect(reply.status).toBe(status);
    expect(JSON.parse(reply.body).error.code).toBe(code);
    // Loopback socket buffers hold a few MB; reading the whole body would be all 100.
    expect(reply.sent).toBeLessThan(BODY_BYTES / 4);
  });

  it('is answered without being read to its end when sent chunked, with no length', async () => {
    const reply = await sendHugeBody(service.runtime.url, {
      'content-type': 'application/json',
      'transfer-encoding': 'chunked',
      authorization: `Bearer ${token}`,
    });

    expect(reply.status).toBe(413);
    expect(reply.sent).toBeLessThan(BODY_BYTES / 4);
  });
});
