/**
 * HSTS (RFC 6797): one HTTPS request for `/` and the Strict-Transport-Security header of the final
 * answer (interim 1xx responses are skipped). The header is read as a browser reads it (§6.1,
 * §8.1): only the first one counts, obs-folded lines are unfolded first (RFC 9112 §5.2), and a
 * header that breaks the grammar (a directive twice, an unterminated quoted-string, a name that is
 * not a token) or lacks max-age is ignored, which is the same as no header. The rule fires when
 * HSTS is missing or its max-age is under 180 days; a response that cannot be read is an error.
 */
import type { TLSSocket } from 'node:tls';
import { SocketReader } from '../socket-reader.ts';

export const HSTS_MIN_MAX_AGE = 180 * 24 * 60 * 60;
const MAX_HEAD = 64 * 1024;
/** Interim responses read before the final one. */
const MAX_INTERIM = 10;

export type HstsVerdict =
  | { kind: 'ok'; maxAge: number; header: string; status: number }
  /** `invalid`: a header was sent and browsers ignore it, for this reason. */
  | { kind: 'missing'; status: number; header?: string; invalid?: string }
  | { kind: 'short'; maxAge: number; header: string; status: number };

/** Reads the response head's status and the first Strict-Transport-Security header. */
export function parseResponseHead(head: string): { status: number; hsts?: string } {
  const [statusLine, ...lines] = head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/);
  const match = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine ?? '');
  if (!match) throw new Error(`not an HTTP response: ${JSON.stringify((statusLine ?? '').slice(0, 80))}`);
  const header = lines.find((line) => /^strict-transport-security:/i.test(line));
  return { status: Number(match[1]), hsts: header?.slice(header.indexOf(':') + 1).trim() };
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+/;

/** The directives of a header by the grammar of RFC 6797 §6.1, or why it does not parse. */
export function parseHsts(header: string): { directives: Map<string, string | null> } | { invalid: string } {
  const directives = new Map<string, string | null>();
  let rest = header;
  const skipSpace = (): void => void (rest = rest.replace(/^[ \t]+/, ''));
  for (;;) {
    skipSpace();
    if (rest === '') return { directives };
    if (rest.startsWith(';')) {
      rest = rest.slice(1);
      continue;
    }
    const name = TOKEN.exec(rest)?.[0];
    if (!name) return { invalid: `${JSON.stringify(rest.slice(0, 20))} is not a directive name` };
    rest = rest.slice(name.length);
    skipSpace();
    let value: string | null = null;
    if (rest.startsWith('=')) {
      rest = rest.slice(1);
      skipSpace();
      if (rest.startsWith('"')) {
        const quoted = /^"((?:[^"\\]|\\.)*)"/.exec(rest);
        if (!quoted) return { invalid: `the value of ${name} is an unterminated quoted-string` };
        value = quoted[1].replace(/\\(.)/g, '$1');
        rest = rest.slice(quoted[0].length);
      } else {
        value = TOKEN.exec(rest)?.[0] ?? '';
        if (value === '') return { invalid: `${name} has no value after "="` };
        rest = rest.slice(value.length);
      }
      skipSpace();
    }
    const key = name.toLowerCase();
    if (directives.has(key)) return { invalid: `the directive ${name} appears twice` };
    directives.set(key, value);
    if (rest !== '' && !rest.startsWith(';')) return { invalid: `${JSON.stringify(rest.slice(0, 20))} follows ${name}` };
  }
}

export function judgeHsts(head: string): HstsVerdict {
  const { status, hsts } = parseResponseHead(head);
  if (hsts === undefined) return { kind: 'missing', status };
  const parsed = parseHsts(hsts);
  if ('invalid' in parsed) return { kind: 'missing', status, header: hsts, invalid: parsed.invalid };
  const maxAge = parsed.directives.get('max-age');
  if (maxAge === undefined) return { kind: 'missing', status, header: hsts, invalid: 'it has no max-age directive' };
  if (maxAge === null || !/^\d+$/.test(maxAge)) return { kind: 'missing', status, header: hsts, invalid: 'its max-age is not a number' };
  const seconds = Number(maxAge);
  if (seconds < HSTS_MIN_MAX_AGE) return { kind: 'short', maxAge: seconds, header: hsts, status };
  return { kind: 'ok', maxAge: seconds, header: hsts, status };
}

/** Sends `GET /` over an established TLS socket and reads the head of the final response. */
export async function fetchResponseHead(socket: TLSSocket, host: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  const reader = new SocketReader(socket, (MAX_INTERIM + 1) * MAX_HEAD + 16 * 1024);
  socket.write(`GET / HTTP/1.1\r\nHost: ${host}\r\nUser-Agent: tlsscan\r\nAccept: */*\r\nConnection: close\r\n\r\n`);
  for (let interim = 0; interim <= MAX_INTERIM; interim++) {
    const head = (await reader.until('\r\n\r\n', timeoutMs, MAX_HEAD, signal)).toString('latin1');
    // 1xx responses other than 101 are interim (RFC 9110 §15.2): the final response follows.
    if (!/^HTTP\/\d(?:\.\d)? 1(?!01)\d\d/.test(head)) return head;
  }
  throw new Error(`more than ${MAX_INTERIM} interim responses`);
}
