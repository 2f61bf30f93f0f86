import { once } from 'node:events';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup } from '../../shared/adapters/runners/connect-guard.ts';

describe('connect-time target guard', () => {
  const server = createServer((_request, response) => response.end('internal'));
  let port: number;

  beforeAll(async () => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const fetchVia = (host: string, lookup?: ReturnType<typeof guardedLookup>) =>
    new Promise<string>((resolve, reject) => {
      get({ host, port, path: '/', lookup, agent: false }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(text));
      }).on('error', reject);
    });

  it('lets an unguarded client reach a loopback service through a name (what the guard prevents)', async () => {
    await expect(fetchVia('localhost')).resolves.toBe('internal');
  });

  it('refuses a name that resolves to loopback at connect time', async () => {
    await expect(fetchVia('localhost', guardedLookup())).rejects.toThrow(/inside the deployment/);
  });

  it('refuses a name that a resolver points at the metadata service, private ranges allowed or not', async () => {
    const rebinding = ((
      _host: string,
      _options: unknown,
      callback: (error: null, addresses: { address: string; family: number }[]) => void,
    ) => callback(null, [{ address: '169.254.169.254', family: 4 }])) as unknown as Parameters<typeof guardedLookup>[1];

    await expect(fetchVia('innocent.example', guardedLookup({ allowPrivateNetworks: true }, rebinding))).rejects.toThrow(
      /169\.254\.169\.254/,
    );
  });

  it('connects to a private address only when the deployment allows private ranges', async () => {
    const privateAnswer = ((
      _host: string,
      _options: unknown,
      callback: (error: null, addresses: { address: string; family: number }[]) => void,
    ) => callback(null, [{ address: '10.0.0.7', family: 4 }])) as unknown as Parameters<typeof guardedLookup>[1];
    const lookup = guardedLookup({ allowPrivateNetworks: false }, privateAnswer);

    const refused = await new Promise<Error | null>((resolve) => lookup('intranet.example', {}, (error) => resolve(error)));
    const allowed = await new Promise<string>((resolve) =>
      guardedLookup({ allowPrivateNetworks: true }, privateAnswer)('intranet.example', {}, (_error, address) => resolve(address as string)),
    );

    expect(refused?.message).toMatch(/private network/);
    expect(allowed).toBe('10.0.0.7');
  });
});
