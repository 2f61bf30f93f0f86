import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makeRawResolver } from '../../../../lib/dns/raw-resolver.ts';
import { startDnsServer, type TestDnsServer } from '../helpers/dns-server.ts';
import { zoneDir } from '../helpers/fixtures.ts';

describe('raw resolver', () => {
  let dns: TestDnsServer;
  const resolver = () => makeRawResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 150, attempts: 2 });

  beforeAll(async () => {
    dns = await startDnsServer({ zoneDir });
  });
  afterAll(async () => {
    await dns.close();
  });
  beforeEach(() => {
    dns.reset();
  });

  it('returns the addresses of a name', async () => {
    const answer = await resolver().query('www.resolver.test', 'A');

    expect(answer).toEqual({ status: 'found', records: ['192.0.2.10'] });
  });

  it('joins the character-strings of a TXT record', async () => {
    const answer = await resolver().query('text.resolver.test', 'TXT');

    expect(answer).toEqual({ status: 'found', records: ['v=spf1 ip4:192.0.2.0/24 -all'] });
  });

  it('returns MX preferences and exchanges', async () => {
    const answer = await resolver().query('mail.resolver.test', 'MX');

    expect(answer).toEqual({
      status: 'found',
      records: [
        { preference: 10, exchange: 'mx1.resolver.test' },
        { preference: 20, exchange: 'mx2.resolver.test' },
      ],
    });
  });

  it('follows a chain of CNAMEs to the records', async () => {
    const answer = await resolver().query('chain.resolver.test', 'AAAA');

    expect(answer).toEqual({ status: 'found', records: ['2001:db8::10'] });
  });

  it('tells NXDOMAIN from NODATA', async () => {
    const missing = await resolver().query('missing.resolver.test', 'A');
    const noData = await resolver().query('www.resolver.test', 'TXT');
    const emptyNonTerminal = await resolver().query('empty.resolver.test', 'A');

    expect(missing).toEqual({ status: 'absent', reason: 'nxdomain' });
    expect(noData).toEqual({ status: 'absent', reason: 'nodata' });
    expect(emptyNonTerminal).toEqual({ status: 'absent', reason: 'nodata' });
  });

  it('matches names case-insensitively and ignores a trailing dot', async () => {
    const answer = await resolver().query('WWW.Resolver.TEST.', 'A');

    expect(answer.status).toBe('found');
  });

  it('retries over TCP when the UDP answer is truncated', async () => {
    dns.behave('text.resolver.test', { truncate: true });

    const answer = await resolver().query('text.resolver.test', 'TXT');

    expect(answer).toEqual({ status: 'found', records: ['v=spf1 ip4:192.0.2.0/24 -all'] });
    expect(dns.log.map((entry) => entry.transport)).toEqual(['udp', 'tcp']);
  });

  it('retries a query that got no answer', async () => {
    dns.behave('www.resolver.test', { dropFirst: 1 });

    const answer = await resolver().query('www.resolver.test', 'A');

    expect(answer.status).toBe('found');
    expect(dns.log).toHaveLength(2);
  });

  it('reports a server that never answers as unknown, not absent', async () => {
    dns.behave('www.resolver.test', { drop: true });

    const answer = await resolver().query('www.resolver.test', 'A');

    expect(answer).toMatchObject({ status: 'unknown', reason: 'timeout' });
    expect(dns.log).toHaveLength(2);
  });

  it('reports SERVFAIL and REFUSED as unknown without retrying the only server', async () => {
    dns.behave('www.resolver.test', { rcode: 'SERVFAIL' });
    dns.behave('alias.resolver.test', { rcode: 'REFUSED' });

    const servfail = await resolver().query('www.resolver.test', 'A');
    const refused = await resolver().query('alias.resolver.test', 'A');

    expect(servfail).toMatchObject({ status: 'unknown', reason: 'servfail' });
    expect(refused).toMatchObject({ status: 'unknown', reason: 'refused' });
    expect(dns.log).toHaveLength(2);
  });

  it('asks the next server after a SERVFAIL', async () => {
    const second = await startDnsServer({ zoneDir });
    dns.behave('www.resolver.test', { rcode: 'SERVFAIL' });
    const twoServers = makeRawResolver({ servers: [dns, second], timeoutMs: 150, attempts: 2 });

    const answer = await twoServers.query('www.resolver.test', 'A');

    expect(answer.status).toBe('found');
    expect(second.log).toHaveLength(1);
    await second.close();
  });

  it('reports a name outside the served zones as refused', async () => {
    const answer = await resolver().query('example.invalid', 'A');

    expect(answer).toMatchObject({ status: 'unknown', reason: 'refused' });
  });

  it('answers from a wildcard', async () => {
    const answer = await resolver().query('anything.wild.resolver.test', 'TXT');

    expect(answer).toEqual({ status: 'found', records: ['wildcard'] });
  });

  it('ends pending queries as unknown when the scan deadline passes', async () => {
    dns.behave('www.resolver.test', { delayMs: 10_000 });
    const deadline = new AbortController();
    const bounded = makeRawResolver({ servers: [dns], timeoutMs: 10_000, attempts: 2, signal: deadline.signal });

    const pending = bounded.query('www.resolver.test', 'A');
    deadline.abort();
    const answer = await pending;
    const later = await bounded.query('alias.resolver.test', 'A');

    expect(answer).toMatchObject({ status: 'unknown', reason: 'timeout' });
    expect(later).toMatchObject({ status: 'unknown', reason: 'timeout' });
  });

  it('rejects a name that cannot be sent', async () => {
    const answer = await resolver().query(`${'a'.repeat(64)}.resolver.test`, 'A');

    expect(answer).toMatchObject({ status: 'unknown', reason: 'error' });
    expect(dns.log).toHaveLength(0);
  });
});
