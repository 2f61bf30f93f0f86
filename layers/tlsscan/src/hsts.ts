/**
 * HSTS (RFC 6797): one HTTPS request for `/` and the first Strict-Transport-Security header of the
 * answer. The rule fires when the header is absent or its max-age is under 180 days; a response
 * that cannot be read is an error, never "missing".
 */
import type { TLSSocket } from 'node:tls';
import { SocketReader } from '../../engine-kit/src/socket-reader.ts';

export const HSTS_MIN_MAX_AGE = 180 * 24 * 60 * 60;
const MAX_HEAD = 64 * 1024;

export type HstsVerdict =
  | { kind: 'ok'; maxAge: number; header: string; status: number }
  | { kind: 'missing'; status: number }
  | { kind: 'short'; maxAge: number | null; header: string; status: number };

/** Reads the response head's status and the first Strict-Transport-Security header. */
export function parseResponseHead(head: string): { status: number; hsts?: string } {
  const [statusLine, ...lines] = head.split(/\r?\n/);
  const match = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine ?? '');
  if (!match) throw new Error(`not an HTTP response: ${JSON.stringify((statusLine ?? '').slice(0, 80))}`);
  const header = lines.find((line) => /^strict-transport-security\s*:/i.test(line));
  return { status: Number(match[1]), hsts: header?.slice(header.indexOf(':') + 1).trim() };
}

/** max-age in seconds, or null when the header has none (or an unreadable one). */
export function hstsMaxAge(header: string): number | null {
  for (const directive of header.split(';')) {
    const match = /^\s*max-age\s*=\s*"?(\d+)"?\s*$/i.exec(directive);
    if (match) return Number(match[1]);
  }
  return null;
}

export function judgeHsts(head: string): HstsVerdict {
  const { status, hsts } = parseResponseHead(head);
  if (hsts === undefined) return { kind: 'missing', status };
  const maxAge = hstsMaxAge(hsts);
  if (maxAge === null || maxAge < HSTS_MIN_MAX_AGE) return { kind: 'short', maxAge, header: hsts, status };
  return { kind: 'ok', maxAge, header: hsts, status };
}

/** Sends `GET /` over an established TLS socket and reads the response head. */
export async function fetchResponseHead(socket: TLSSocket, host: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const reader = new SocketReader(socket, MAX_HEAD + 16 * 1024);
  socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: tlsscan\r\nAccept: */*\r\nConnection: close\r\n\r\n`);
  return (await reader.until('\r\n\r\n', timeoutMs, MAX_HEAD, signal)).toString('latin1');
}
