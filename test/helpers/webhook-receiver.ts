import { createHmac, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedDelivery {
  eventId: string;
  eventType: string;
  body: string;
}

/**
 * A webhook receiver as a tenant would write one, on loopback: it verifies `X-Signature-256`
 * against the rule's secret, refuses a bad signature (401), keeps one accepted delivery per
 * `X-Event-Id` (a repeat is acknowledged and not counted again), and can answer 500 to the first
 * `failFirst` attempts of each event id.
 */
export async function startWebhookReceiver(options: { failFirst?: number; alwaysFail?: boolean } = {}) {
  let secret = '';
  const attempts = new Map<string, number>();
  const accepted = new Map<string, ReceivedDelivery>();
  const badSignatures: string[] = [];
  const bodies: string[] = [];
  const server = createServer((request: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      const eventId = String(request.headers['x-event-id'] ?? '');
      const given = Buffer.from(String(request.headers['x-signature-256'] ?? ''));
      const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
      if (secret !== '' && (given.length !== expected.length || !timingSafeEqual(given, expected))) {
        badSignatures.push(eventId);
        response.writeHead(401).end();
        return;
      }
      const attempt = (attempts.get(eventId) ?? 0) + 1;
      attempts.set(eventId, attempt);
      if (options.alwaysFail || attempt <= (options.failFirst ?? 0)) {
        response.writeHead(500).end('not now');
        return;
      }
      if (!accepted.has(eventId)) accepted.set(eventId, { eventId, eventType: String(request.headers['x-event-type']), body });
      response.writeHead(204).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    /** Verify signatures with this secret from now on (the create response's `secret`). */
    useSecret(value: string) {
      secret = value;
    },
    attempts,
    accepted,
    badSignatures,
    bodies,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
