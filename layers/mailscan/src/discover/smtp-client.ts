import { connect, type Socket } from 'node:net';

/**
 * A minimal SMTP client for RCPT probes (RFC 5321): greeting, EHLO (HELO as fallback), MAIL FROM:<>,
 * one RCPT TO per address, QUIT. Never DATA: nothing is ever sent. Every reply is bounded in size
 * and time; a pause between commands keeps the probe polite.
 */
export interface SmtpReply {
  code: number;
  text: string;
}

export interface SmtpSessionOptions {
  /** The vetted address to connect to (never a name: resolving again would reopen DNS rebinding). */
  address: string;
  port: number;
  helo: string;
  /** Per reply. */
  timeoutMs: number;
  /** Between commands. */
  pauseMs: number;
  signal?: AbortSignal;
}

export class SmtpError extends Error {
  constructor(
    readonly code: 'connect' | 'timeout' | 'closed' | 'protocol',
    message: string,
  ) {
    super(message);
    this.name = 'SmtpError';
  }
}

const MAX_REPLY_BYTES = 16 * 1024;

export interface SmtpSession {
  greeting: SmtpReply;
  command(line: string): Promise<SmtpReply>;
  /** QUIT and close; never throws. */
  close(): Promise<void>;
}

export async function openSmtpSession(options: SmtpSessionOptions): Promise<SmtpSession> {
  const socket: Socket = connect({ host: options.address, port: options.port });
  socket.setNoDelay(true);
  let buffer = '';
  let waiting: { resolve: (reply: SmtpReply) => void; reject: (error: Error) => void } | null = null;
  let failure: SmtpError | null = null;
  const replies: SmtpReply[] = [];

  const settle = (): void => {
    if (!waiting) return;
    if (replies.length > 0) {
      const next = waiting;
      waiting = null;
      next.resolve(replies.shift() as SmtpReply);
    } else if (failure) {
      const next = waiting;
      waiting = null;
      next.reject(failure);
    }
  };
  const fail = (error: SmtpError): void => {
    failure ??= error;
    socket.destroy();
    settle();
  };

  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    if (buffer.length > MAX_REPLY_BYTES) return fail(new SmtpError('protocol', `reply longer than ${MAX_REPLY_BYTES} bytes`));
    // A reply is complete at a line "NNN text" (space, not hyphen, after the code).
    for (;;) {
      const lines = buffer.split('\r\n');
      const end = lines.findIndex((line, i) => i < lines.length - 1 && /^\d{3}(?: |$)/.test(line));
      if (end === -1) break;
      const replyLines = lines.slice(0, end + 1);
      buffer = lines.slice(end + 1).join('\r\n');
      const code = Number(replyLines[end].slice(0, 3));
      replies.push({
        code,
        text: replyLines
          .map((line) => line.slice(4))
          .join(' ')
          .trim()
          .slice(0, 500),
      });
    }
    settle();
  });
  socket.on('error', (error) => fail(new SmtpError(socket.connecting ? 'connect' : 'closed', error.message)));
  socket.on('close', () => fail(new SmtpError('closed', 'the server closed the connection')));
  const onAbort = (): void => fail(new SmtpError('timeout', 'the scan deadline was reached'));
  options.signal?.addEventListener('abort', onAbort, { once: true });

  const nextReply = (): Promise<SmtpReply> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting = null;
        const error = new SmtpError('timeout', `no reply within ${options.timeoutMs} ms`);
        fail(error);
        reject(failure ?? error);
      }, options.timeoutMs);
      waiting = {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      settle();
    });
  const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, options.pauseMs));

  const command = async (line: string): Promise<SmtpReply> => {
    if (failure) throw failure;
    if (/[\r\n]/.test(line)) throw new SmtpError('protocol', 'a command may not contain a line break');
    await pause();
    socket.write(`${line}\r\n`);
    return nextReply();
  };

  try {
    const greeting = await nextReply();
    return {
      greeting,
      command,
      close: async () => {
        options.signal?.removeEventListener('abort', onAbort);
        if (!failure) {
          try {
            socket.write('QUIT\r\n');
            await Promise.race([nextReply(), new Promise((resolve) => setTimeout(resolve, Math.min(options.timeoutMs, 1_000)))]);
          } catch {
            // The server may close before answering QUIT; the probe is over either way.
          }
        }
        socket.destroy();
      },
    };
  } catch (error) {
    options.signal?.removeEventListener('abort', onAbort);
    socket.destroy();
    throw error;
  }
}
