import { once } from 'node:events';
import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedLookup } from '../../lib/guarded-lookup.ts';

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

    await expect(fetchVia('innocent.example', guardedLookup({ allowPrivate: true }, rebinding))).rejects.toThrow(/169\.254\.169\.254/);
  });

  it('refuses this host (0.0.0.0, ::) and loopback carried in 6to4 or NAT64, private ranges allowed or not', async () => {
    for (const address of ['0.0.0.0', '::', '2002:7f00:1::1', '64:ff9b::7f00:1', '::ffff:127.0.0.1']) {
      const answer = ((
        _host: string,
        _options: unknown,
        callback: (error: null, addresses: { address: string; family: number }[]) => void,
      ) => callback(null, [{ address, family: address.includes(':') ? 6 : 4 }])) as unknown as Parameters<typeof guardedLookup>[1];
      const refused = await new Promise<Error | null>((resolve) =>
        guardedLookup({ allowPrivate: true }, answer)('innocent.example', {}, (error) => resolve(error)),
      );
      expect(refused?.message, address).toMatch(/inside the deployment/);
    }
  });

  it('connects to a private address only when the deployment allows private ranges', async () => {
    const privateAnswer = ((
      _host: string,
      _options: unknown,
      callback: (error: null, addresses: { address: string; family: number }[]) => void,
    ) => callback(null, [{ address: '10.0.0.7', family: 4 }])) as unknown as Parameters<typeof guardedLookup>[1];
    const lookup = guardedLookup({ allowPrivate: false }, privateAnswer);

    const refused = await new Promise<Error | null>((resolve) => lookup('intranet.example', {}, (error) => resolve(error)));
    const allowed = await new Promise<string>((resolve) =>
      guardedLookup({ allowPrivate: true }, privateAnswer)('intranet.example', {}, (_error, address) => resolve(address as string)),
    );

    expect(refused?.message).toMatch(/10\.0\.0\.7 is private/);
    expect(allowed).toBe('10.0.0.7');
  });
});
