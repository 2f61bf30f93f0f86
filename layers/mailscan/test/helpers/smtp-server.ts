/**
 * A real SMTP server (`smtp-server`) on loopback for RCPT probes. It accepts the addresses it is
 * given, or every address (catch-all); it can greylist (451) every RCPT or drop the connection after
 * a number of RCPTs. It records every command, and refuses DATA: a probe must never send mail.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface SmtpFakeOptions {
  mailboxes?: string[];
  catchAll?: boolean;
  greylist?: boolean;
  /** Close the connection when this many RCPT commands have arrived. */
  dropAfterRcpt?: number;
}

export interface SmtpFake {
  port: number;
  rcpts: string[];
  mailFrom: string[];
  helos: string[];
  dataAttempts: number;
  connections: number;
  close(): Promise<void>;
}

export async function startSmtpFake(options: SmtpFakeOptions): Promise<SmtpFake> {
  const state = { rcpts: [] as string[], mailFrom: [] as string[], helos: [] as string[], dataAttempts: 0, connections: 0 };
  const mailboxes = new Set((options.mailboxes ?? []).map((address) => address.toLowerCase()));
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    banner: 'test MX',
    onConnect(session, callback) {
      state.connections += 1;
      callback();
    },
    onMailFrom(address, session, callback) {
      state.helos.push(session.hostNameAppearsAs);
      state.mailFrom.push(address.address);
      callback();
    },
    onRcptTo(address, session, callback) {
      state.rcpts.push(address.address);
      if (options.dropAfterRcpt !== undefined && state.rcpts.length >= options.dropAfterRcpt) {
        for (const connection of (server as unknown as { connections: Set<{ _socket: { destroy(): void } }> }).connections)
          connection._socket.destroy();
        return;
      }
      if (options.greylist) return callback(Object.assign(new Error('Greylisted, try again later'), { responseCode: 451 }));
      if (options.catchAll || mailboxes.has(address.address.toLowerCase())) return callback();
      return callback(Object.assign(new Error('No such user here'), { responseCode: 550 }));
    },
    onData(stream, session, callback) {
      state.dataAttempts += 1;
      stream.resume();
      callback(new Error('probes must not send data'));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = (server as unknown as { server: { address(): AddressInfo } }).server.address();
  return {
    port,
    get rcpts() {
      return state.rcpts;
    },
    get mailFrom() {
      return state.mailFrom;
    },
    get helos() {
      return state.helos;
    },
    get dataAttempts() {
      return state.dataAttempts;
    },
    get connections() {
      return state.connections;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
