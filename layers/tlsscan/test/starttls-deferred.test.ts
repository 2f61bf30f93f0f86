import { type AddressInfo, type Server, createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStatuses, scanWithEngine } from '../../../test/helpers/built-engine.ts';

/**
 * Issue 33 item 3: EHLO lists STARTTLS and STARTTLS is answered 454 (TLS not available for a
 * temporary reason, RFC 3207 §4). STARTTLS is offered, so `starttls.unavailable` passes, and every
 * TLS rule is `error`: nothing about the TLS was learnt. Before, both tlsscan and netscan (which
 * runs tlsscan on the mail ports it finds) reported a high "unavailable" finding, netscan beside
 * its own `offers_tls: true`. A plain SMTP server on loopback, each engine's built CLI.
 */
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((socket) => {
    socket.on('error', () => {});
    socket.write('220 mx.example ESMTP\r\n');
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const command = buffer.slice(0, end).toUpperCase();
        buffer = buffer.slice(end + 2);
        if (command.startsWith('EHLO')) socket.write('250-mx.example\r\n250-PIPELINING\r\n250-STARTTLS\r\n250 8BITMIME\r\n');
        else if (command === 'STARTTLS') socket.write('454 4.7.0 TLS not available due to temporary reason\r\n');
        else if (command === 'QUIT') socket.end('221 2.0.0 Bye\r\n');
        else socket.write('502 5.5.2 Error: command not recognized\r\n');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('STARTTLS answered 454', () => {
  it('tlsscan passes starttls.unavailable and reports every TLS rule as error', async () => {
    const { report } = await scanWithEngine('tlsscan', `127.0.0.1:${port}`, { starttls: 'smtp' });
    const checks = checkStatuses(report);
    expect(checks['tls.starttls.unavailable']).toBe('pass');
    expect(report.findings).toEqual([]);
    const others = Object.entries(checks).filter(([id]) => id !== 'tls.starttls.unavailable' && id !== 'tls.hsts.missing');
    expect(others.every(([, status]) => status === 'error')).toBe(true);
    expect(report.errors.map((e) => e.message).join(' ')).toMatch(/454/);
  });

  it('netscan does the same on the SMTP port it finds, beside offers_tls: true', async () => {
    const { report } = await scanWithEngine('netscan', '127.0.0.1', { ports: String(port), mode: 'vapt' });
    const checks = checkStatuses(report);
    const open = report.findings.find((f) => f.rule_id === 'net.port.open');
    expect(open?.evidence).toMatchObject({ service: 'smtp', offers_tls: true });
    expect(checks['net.tls.starttls.unavailable']).toBe('pass');
    expect(report.findings.filter((f) => f.rule_id.startsWith('net.tls.'))).toEqual([]);
    expect(checks['net.tls.protocol.tls10']).toBe('error');
  });
});
