import { makeCachingResolver } from '../../../../lib/dns/caching-resolver.ts';
import { makeRawResolver } from '../../../../lib/dns/raw-resolver.ts';
import { lookupViaResolver } from '../../../../lib/http/resolver-lookup.ts';
import { makeSafeFetch } from '../../../../lib/http/safe-fetch.ts';
import { placeFindings } from '../place-findings.ts';
import { reputationDefaults } from '../reputation/defaults.ts';
import { scanDomain, type RunReputation } from '../scan/scan-domain.ts';
import type { ScanArgs } from './args.ts';
import { EXIT, makeStderrLog, type CliIo } from './io.ts';
import { resolveSettings } from './scan-settings.ts';
import { applyScopeFile } from './scope-file.ts';
import { renderText } from './text-report.ts';

/**
 * The reputation surface is loaded when the scan calls it, after posture has sent its first
 * queries: its module graph then loads while the scan waits on DNS, not before the scan starts.
 */
const runReputationWhenCalled: RunReputation = async (input, context) =>
  (await import('../reputation/index.ts')).runReputation(input, context);

/** The composition root of `mailscan scan`: real resolver, real fetch, real reputation surface. */
export async function runScanCommand(given: ScanArgs, io: CliIo): Promise<number> {
  const log = makeStderrLog(io);
  const scoped = await applyScopeFile(given);
  if (!scoped.ok) {
    log.error('usage error', { message: scoped.message });
    return EXIT.usage;
  }
  const args = scoped.args;
  const resolved = await resolveSettings(args, io.env);
  if (!resolved.ok) {
    log.error(resolved.exit === 'usage' ? 'usage error' : 'scan could not start', { message: resolved.message });
    return resolved.exit === 'usage' ? EXIT.usage : EXIT.couldNotStart;
  }
  const settings = resolved.settings;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), settings.deadlineMs);
  let softTimer: NodeJS.Timeout | undefined;
  try {
    const resolver = makeCachingResolver(makeRawResolver({ servers: settings.nameservers, ...settings.dns, signal: deadline.signal }));
    const fetch = makeSafeFetch({
      timeoutMs: settings.fetchTimeoutMs,
      maxBytes: reputationDefaults.fetch.maxBytes,
      allowPrivate: settings.allowPrivate,
      lookup: lookupViaResolver(resolver),
    });
    // Discover and leak stop a little before the hard deadline, so their partial results still make the report.
    const softDeadline = new AbortController();
    softTimer = setTimeout(() => softDeadline.abort(), Math.max(settings.deadlineMs * 0.9, settings.deadlineMs - 5_000));
    const optIn =
      settings.optIn === null
        ? null
        : {
            discover: args.discover,
            leak: args.leak,
            techniques: args.techniques,
            context: {
              domain: args.domain,
              resolver,
              fetch,
              vendors: settings.optIn.vendors,
              settings: settings.optIn.settings,
              allowPrivate: settings.allowPrivate,
              now: io.now,
              log: log.info,
              signal: softDeadline.signal,
            },
          };
    const outcome = await scanDomain(
      {
        domain: args.domain,
        dkimSelectors: settings.dkimSelectors,
        rua: args.rua,
        eml: args.eml,
        reputation:
          settings.reputation === null
            ? null
            : { run: runReputationWhenCalled, context: { resolver, fetch, config: settings.reputation, now: io.now, log: log.info } },
        optIn,
      },
      {
        resolver,
        now: io.now,
        log: log.info,
        deadline: deadline.signal,
        resolverName: settings.nameservers.map((server) => `${server.host}:${server.port}`).join(', '),
      },
    );
    if (outcome.kind === 'could_not_start') {
      log.error('scan could not start', { domain: args.domain, message: outcome.message });
      return EXIT.couldNotStart;
    }
    const report = placeFindings(outcome.report);
    io.stdout(args.format === 'text' ? renderText(report) : `${JSON.stringify(report, null, 2)}\n`);
    return EXIT.ok;
  } finally {
    clearTimeout(timer);
    clearTimeout(softTimer);
  }
}
