import { execFile } from 'node:child_process';
import { parseArgs } from 'node:util';
import { makeCountingResolver } from '../layers/mailscan/src/dns/counting-resolver.ts';
import { makeRawResolver } from '../lib/dns/raw-resolver.ts';
import type { OptInContext } from '../layers/mailscan/src/external/services.ts';
import { OPT_IN_DEFAULTS } from '../layers/mailscan/src/external/opt-in-config.ts';
import { lookalikeCandidates, scanLookalikes } from '../layers/mailscan/src/leak/lookalikes.ts';
import { startDnsServerProcess } from '../layers/mailscan/test/helpers/dns-server-process.ts';
import { formatSpread, interleaved, pairedRatios } from './paired.ts';
import { dnstwistInstalled, dnstwistLists, DNSTWIST_DICTIONARIES } from '../layers/mailscan/test/helpers/dnstwist.ts';

// npm run bench:leak [-- --domain acmeprints.com --delay 20 --threads 6 --runs 3]: lookalike enumeration
// of a 10-character domain behind the test DNS server with 20 ms added to every answer, served on
// 127.0.0.53 port 53 (dnstwist's --nameservers takes addresses only, so port 53; run as root). Both
// tools get the same TLD and word lists (dnstwist's own files), so they enumerate comparable sets.
// The headline compares equal work at equal concurrency: mailscan with `--threads` queries in flight
// and dnstwist with `--threads` threads (default 6, dnstwist's own default), the two in turn over
// `--runs` rounds, wall times as median (min–max) and dnstwist ÷ mailscan paired per round. Then,
// not comparable to dnstwist, mailscan at its production concurrency (OPT_IN_DEFAULTS, 50). A few
// lookalikes are registered in the zone so both have something to find.
const { values } = parseArgs({
  options: {
    domain: { type: 'string', default: 'acmeprints.com' },
    delay: { type: 'string', default: '20' },
    threads: { type: 'string', default: '6' },
    runs: { type: 'string', default: '3' },
    host: { type: 'string', default: '127.0.0.53' },
  },
});
const domain = values.domain;
const DELAY_MS = Number(values.delay);
const host = values.host;
const name = domain.split('.')[0];

const registered = [`${name.slice(0, 4)}${name.slice(5)}.com`, `${name}s.com`, `${name}.net`, `${name.slice(0, 4)}-${name.slice(4)}.com`];
const zones = [domain, ...registered].map((origin) => ({
  origin,
  text: `@ IN SOA ns.${origin}. hostmaster.${origin}. ( 1 3600 600 86400 300 )\n@ IN NS ns\nns IN A 127.0.0.1\n@ IN A 203.0.113.10\n@ IN MX 10 mail\nmail IN A 203.0.113.11\n`,
}));
const dns = await startDnsServerProcess({ zones, addedDelayMs: DELAY_MS, outOfZone: 'NXDOMAIN', host, port: 53 });

try {
  const lists = dnstwistInstalled() ? dnstwistLists() : { tlds: undefined, dictionary: undefined };
  const threads = Number(values.threads);
  const runs = Number(values.runs);

  /** One enumeration by mailscan with `concurrency` queries in flight. */
  async function mailscanRun(concurrency: number) {
    const raw = makeRawResolver({ servers: [{ host: dns.host, port: dns.port }], timeoutMs: 2_000, attempts: 2 });
    const { resolver, count } = makeCountingResolver(raw);
    const settings = {
      ...OPT_IN_DEFAULTS,
      smtp: { ...OPT_IN_DEFAULTS.smtp },
      codesearch: { words: [], maxResultsPerWord: 1 },
      lookalike: {
        maxCandidates: 50_000,
        concurrency,
        maxCtChecks: 0,
        ...(lists.tlds ? { tlds: lists.tlds, dictionary: lists.dictionary } : {}),
      },
    };
    const ctx = { domain, resolver, settings, allowPrivate: true, now: () => new Date(), log: () => {} } as unknown as OptInContext;
    const { candidates, generated } = lookalikeCandidates(domain, ctx);
    const started = performance.now();
    const scan = await scanLookalikes(ctx, candidates, generated);
    const wall = performance.now() - started;
    const registered = scan.resolved.filter((item) => item.state === 'registered').map((item) => item.domain);
    return {
      wall,
      candidates: scan.candidates,
      queries: count.queries,
      registered,
      unknown: scan.resolved.filter((item) => item.state === 'unknown').length,
    };
  }

  /** One enumeration by dnstwist with `threads` threads on the same server and word lists. */
  async function dnstwistRun() {
    const started = performance.now();
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        'dnstwist',
        [
          '--nameservers',
          dns.host,
          '--threads',
          String(threads),
          '--format',
          'json',
          '--tld',
          `${DNSTWIST_DICTIONARIES}/common_tlds.dict`,
          '--dictionary',
          `${DNSTWIST_DICTIONARIES}/english.dict`,
          domain,
        ],
        { maxBuffer: 256 * 1024 * 1024 },
        (error, stdout) => (error ? reject(new Error(`dnstwist failed: ${error.message}`)) : resolve(stdout)),
      );
    });
    const wall = performance.now() - started;
    const found = JSON.parse(output) as { domain: string; dns_a?: string[]; dns_ns?: string[]; dns_mx?: string[] }[];
    const registered = found
      .filter((item) => item.dns_a !== undefined || item.dns_ns !== undefined || item.dns_mx !== undefined)
      .map((item) => item.domain)
      .filter((item) => item !== domain);
    return { wall, candidates: found.length - 1, registered };
  }

  const lines = [
    `lookalike enumeration of ${domain} (${name.length} characters), ${DELAY_MS} ms added per DNS answer, server ${dns.address}, ${runs} rounds; median (min–max)`,
  ];
  if (dnstwistInstalled()) {
    const samples = await interleaved<{ wall: number; candidates: number; registered: string[] }>(
      { mailscan: () => mailscanRun(threads), dnstwist: dnstwistRun },
      runs,
      0,
    );
    const ours = samples.mailscan.map((sample) => sample.wall);
    const theirs = samples.dnstwist.map((sample) => sample.wall);
    lines.push(
      `  equal concurrency (${threads} in flight each):`,
      `    mailscan   candidates ${samples.mailscan[0].candidates}, wall ${formatSpread(
        ours.map((ms) => ms / 1000),
        ' s',
        2,
      )}, registered ${samples.mailscan[0].registered.length} (${samples.mailscan[0].registered.join(', ')})`,
      `    dnstwist   candidates ${samples.dnstwist[0].candidates}, wall ${formatSpread(
        theirs.map((ms) => ms / 1000),
        ' s',
        2,
      )}, registered ${samples.dnstwist[0].registered.length} (${samples.dnstwist[0].registered.join(', ')})`,
      `    dnstwist ÷ mailscan, paired per round = ${formatSpread(pairedRatios(theirs, ours), '', 2)}`,
    );
  } else {
    lines.push('  dnstwist   not installed (apt-get install dnstwist): no comparison');
  }
  const production = await mailscanRun(OPT_IN_DEFAULTS.lookalike.concurrency);
  lines.push(
    `  mailscan at its production concurrency (${OPT_IN_DEFAULTS.lookalike.concurrency}, not comparable to dnstwist's ${threads} threads): candidates ${production.candidates}, DNS queries ${production.queries}, wall ${(production.wall / 1000).toFixed(2)} s, unknown ${production.unknown}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await dns.close();
}
