/**
 * The plaintext preambles that turn a connection into a TLS one: SMTP (RFC 3207), IMAP
 * (RFC 3501 §6.2.1), POP3 (RFC 2595 §4), and RDP's security negotiation ([MS-RDPBCGR] 2.2.1.1:
 * the X.224 Connection Request asking for TLS or CredSSP, TLS starting after a Connection Confirm
 * that selects either). Each reads the greeting and capabilities with bounded
 * line reads, and either hands the connection over for the ClientHello or reports that the server
 * does not offer STARTTLS (a value, `tls.starttls.unavailable`), never confusing that with a failure.
 */
import { RdpProtocol, connectionRequest, describeAnswer, parseConnectionConfirm, tpktFramer } from '../rdp-negotiation.ts';
import type { SocketReader } from '../socket-reader.ts';

export type StartTls = 'smtp' | 'imap' | 'pop3' | 'rdp' | 'none';

/** The server's protocol did not go as RFC'd (a bad greeting, an unexpected answer). */
export class StartTlsFailed extends Error {
  override readonly name = 'StartTlsFailed';
}

/**
 * `deferred`: the server offers STARTTLS but answered it with a temporary refusal (SMTP 4xx, e.g.
 * 454): TLS is offered, and nothing about it can be learnt this time.
 */
export type StartTlsOutcome = { kind: 'ready' } | { kind: 'unavailable'; evidence: string } | { kind: 'deferred'; evidence: string };

export interface LineIo {
  reader: SocketReader;
  write(bytes: string | Buffer): void;
  timeoutMs: number;
  signal?: AbortSignal;
}

const MAX_LINE = 4096;
const MAX_LINES = 100;

async function line(io: LineIo): Promise<string> {
  return (await io.reader.until('\n', io.timeoutMs, MAX_LINE, io.signal)).toString('latin1').replace(/\r?\n$/, '');
}

/** An SMTP reply: its code and lines (continuations are "250-"). */
async function smtpReply(io: LineIo): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  for (let i = 0; i < MAX_LINES; i++) {
    const text = await line(io);
    const match = /^(\d{3})([ -])(.*)$/.exec(text);
    if (!match) throw new StartTlsFailed(`not an SMTP reply: ${JSON.stringify(text.slice(0, 80))}`);
    lines.push(match[3]);
    if (match[2] === ' ') return { code: Number(match[1]), lines };
  }
  throw new StartTlsFailed(`an SMTP reply longer than ${MAX_LINES} lines`);
}

async function smtp(io: LineIo): Promise<StartTlsOutcome> {
  const greeting = await smtpReply(io);
  if (greeting.code !== 220) throw new StartTlsFailed(`the SMTP greeting is ${greeting.code} ${greeting.lines[0] ?? ''}`.trim());
  io.write('EHLO tlsscan.invalid\r\n');
  const ehlo = await smtpReply(io);
  if (ehlo.code !== 250) throw new StartTlsFailed(`EHLO was answered with ${ehlo.code} ${ehlo.lines[0] ?? ''}`.trim());
  if (!ehlo.lines.some((text) => /^STARTTLS\b/i.test(text))) {
    return { kind: 'unavailable', evidence: `EHLO lists ${ehlo.lines.slice(1).join(', ') || 'no extensions'}` };
  }
  io.write('STARTTLS\r\n');
  const answer = await smtpReply(io);
  const said = `STARTTLS was answered with ${answer.code} ${answer.lines[0] ?? ''}`.trim();
  if (answer.code >= 400 && answer.code < 500) return { kind: 'deferred', evidence: said };
  if (answer.code !== 220)
    return { kind: 'unavailable', evidence: `STARTTLS was answered with ${answer.code} ${answer.lines[0] ?? ''}`.trim() };
  return { kind: 'ready' };
}

async function imapTagged(io: LineIo, tag: string): Promise<{ status: string; untagged: string[] }> {
  const untagged: string[] = [];
  for (let i = 0; i < MAX_LINES; i++) {
    const text = await line(io);
    if (text.startsWith(`${tag} `)) return { status: text.slice(tag.length + 1), untagged };
    untagged.push(text);
  }
  throw new StartTlsFailed(`no tagged IMAP answer within ${MAX_LINES} lines`);
}

async function imap(io: LineIo): Promise<StartTlsOutcome> {
  const greeting = await line(io);
  if (!/^\* (OK|PREAUTH)\b/i.test(greeting)) throw new StartTlsFailed(`not an IMAP greeting: ${JSON.stringify(greeting.slice(0, 80))}`);
  io.write('a1 CAPABILITY\r\n');
  const capability = await imapTagged(io, 'a1');
  const listed = [greeting, ...capability.untagged].some((text) => /\bSTARTTLS\b/i.test(text));
  if (!listed) return { kind: 'unavailable', evidence: `CAPABILITY: ${capability.untagged.join(' ').slice(0, 200)}` };
  io.write('a2 STARTTLS\r\n');
  const answer = await imapTagged(io, 'a2');
  if (!/^OK\b/i.test(answer.status)) return { kind: 'unavailable', evidence: `STARTTLS was answered with ${answer.status}` };
  return { kind: 'ready' };
}

async function pop3(io: LineIo): Promise<StartTlsOutcome> {
  const greeting = await line(io);
  if (!greeting.startsWith('+OK')) throw new StartTlsFailed(`not a POP3 greeting: ${JSON.stringify(greeting.slice(0, 80))}`);
  io.write('CAPA\r\n');
  const first = await line(io);
  const capabilities: string[] = [];
  if (first.startsWith('+OK')) {
    for (let i = 0; i < MAX_LINES; i++) {
      const text = await line(io);
      if (text === '.') break;
      capabilities.push(text);
    }
  }
  if (!capabilities.some((text) => /^STLS\b/i.test(text))) {
    return { kind: 'unavailable', evidence: `CAPA: ${capabilities.join(', ') || first}` };
  }
  io.write('STLS\r\n');
  const answer = await line(io);
  if (!answer.startsWith('+OK')) return { kind: 'unavailable', evidence: `STLS was answered with ${answer}` };
  return { kind: 'ready' };
}

/**
 * RDP: ask for TLS or CredSSP (no standard RDP security); TLS starts when the server selects either.
 * A server that selects standard RDP or refuses TLS does not offer TLS (a value, as a missing
 * STARTTLS is); a server that answers anything but a Connection Confirm fails the preamble.
 */
async function rdp(io: LineIo): Promise<StartTlsOutcome> {
  io.write(connectionRequest(RdpProtocol.ssl | RdpProtocol.hybrid));
  let answer;
  try {
    answer = parseConnectionConfirm(await io.reader.read(tpktFramer, io.timeoutMs, io.signal));
  } catch (error) {
    throw new StartTlsFailed((error as Error).message);
  }
  if (answer.kind === 'selected' && (answer.selected & (RdpProtocol.ssl | RdpProtocol.hybrid | RdpProtocol.hybridEx)) !== 0) {
    return { kind: 'ready' };
  }
  if (answer.kind === 'failure' && answer.name !== 'SSL_NOT_ALLOWED_BY_SERVER') {
    throw new StartTlsFailed(`the RDP server refused TLS and CredSSP with ${describeAnswer(answer)}`);
  }
  return { kind: 'unavailable', evidence: `asked for TLS or CredSSP, the server answered ${describeAnswer(answer)}` };
}

/** The preamble's name in details: "SMTP STARTTLS", "RDP TLS negotiation". */
export function preambleName(protocol: Exclude<StartTls, 'none'>): string {
  return protocol === 'rdp' ? 'RDP TLS negotiation' : `${protocol.toUpperCase()} STARTTLS`;
}

/** Runs the preamble for `protocol` on a fresh connection. */
export function negotiateStartTls(protocol: Exclude<StartTls, 'none'>, io: LineIo): Promise<StartTlsOutcome> {
  switch (protocol) {
    case 'smtp':
      return smtp(io);
    case 'imap':
      return imap(io);
    case 'pop3':
      return pop3(io);
    case 'rdp':
      return rdp(io);
  }
}

/** DESIGN §12: the protocol a port implies when the scope does not say (3389: RDP, DESIGN §21). */
export function defaultStartTls(port: number): StartTls {
  if (port === 3389) return 'rdp';
  if (port === 25 || port === 587) return 'smtp';
  if (port === 143) return 'imap';
  if (port === 110) return 'pop3';
  return 'none';
}
