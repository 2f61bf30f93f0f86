import { afterAll, beforeAll, beforeEach } from 'vitest';
import { buildCli } from './cli.ts';
import { startDnsServer, type TestDnsServer } from './dns-server.ts';
import { zoneDir } from './fixtures.ts';

/**
 * The fixture zones (test/fixtures/mailscan/zones) behind a loopback DNS server for the calling
 * `describe`: started with the CLI's build before its tests, reset (behaviours and query log)
 * before each test, closed after them. Returns the server, to call inside tests and hooks.
 */
export function serveFixtureZones(): () => TestDnsServer {
  let server: TestDnsServer | undefined;
  beforeAll(async () => {
    [server] = await Promise.all([startDnsServer({ zoneDir }), buildCli()]);
  });
  afterAll(async () => {
    await server?.close();
  });
  beforeEach(() => {
    server?.reset();
  });
  return () => {
    if (server === undefined) throw new Error('the fixture zones are served from beforeAll on');
    return server;
  };
}
