import { makeCachingResolver } from '../../../../lib/dns/caching-resolver.ts';
import { makeRawResolver } from '../../../../lib/dns/raw-resolver.ts';
import { lookupViaResolver } from '../../../../lib/http/resolver-lookup.ts';
import { makeSafeFetch } from '../../../../lib/http/safe-fetch.ts';
import { CouldNotStart, type ReportFields, type ScanContext } from '../../../engine-kit/src/cli.ts';
import type { Progress } from '../../../engine-kit/src/progress.ts';
import { placeFindings } from '../place-findings.ts';
import { reputationDefaults } from '../reputation/defaults.ts';
import { scanDomain, type RunReputation } from '../scan/scan-domain.ts';
import type { PreparedScan, ScopeFile } from './scan-settings.ts';

/**
 * The reputation surface is loaded when the scan calls it, after posture has sent its first
 * queries: its module graph then loads while the scan waits on DNS, not before the scan starts.
 */
const runReputationWhenCalled: RunReputation = async (input, context) =>
  (await import('../reputation/index.ts')).runReputation(input, context);

/**
 * The composition root of `mailscan scan` (the kit frame's `scan`): real resolver, real fetch,
 * real reputation surface, all stopping at the frame's deadline; returns mailscan's report (its
 * surfaces, its findings placed), which the frame prints.
 */
export async function runScan(context: ScanContext<ScopeFile, PreparedScan>): Promise<ReportFields> {
  const { asked, settings } = context.prepared;
  // The frame says when the scan starts and finishes; the scan's own lines are its surfaces'.
  const log: Progress = context.progress;
  const deadline = context.deadline;
  const resolver = makeCachingResolver(makeRawResolver({ servers: settings.nameservers, ...settings.dns, signal: deadline.signal }));
  const fetch = makeSafeFetch({
    timeoutMs: settings.fetchTimeoutMs,
    maxBytes: reputationDefaults.fetch.maxBytes,
    allowPrivate: settings.allowPrivate,
    allowLoopback: settings.allowLoopback,
    lookup: lookupViaResolver(resolver),
  });
  const optIn =
    settings.optIn === null
      ? null
      : {
          discover: asked.discover,
          leak: asked.leak,
          techniques: asked.techniques,
          context: {
            domain: context.target,
            resolver,
            fetch,
            vendors: settings.optIn.vendors,
            settings: settings.optIn.settings,
            allowPrivate: settings.allowPrivate,
            allowLoopback: settings.allowLoopback,
            now: context.now,
            log,
            // Discover and leak stop a little before the hard deadline, so their partial results still make the report.
            signal: deadline.child(Math.max(deadline.remainingMs() * 0.9, deadline.remainingMs() - 5_000)).signal,
          },
        };
  const outcome = await scanDomain(
    {
      domain: context.target,
      dkimSelectors: settings.dkimSelectors,
      rua: asked.rua,
      eml: asked.eml,
      reputation:
        settings.reputation === null
          ? null
          : { run: runReputationWhenCalled, context: { resolver, fetch, config: settings.reputation, now: context.now, log } },
      optIn,
    },
    {
      resolver,
      now: context.now,
      log,
      deadline: deadline.signal,
      resolverName: settings.nameservers.map((server) => `${server.host}:${server.port}`).join(', '),
    },
  );
  if (outcome.kind === 'could_not_start') throw new CouldNotStart(outcome.message);
  // placeFindings gives every finding its kit `fingerprint_key`; mailscan's Report type keeps it optional.
  return placeFindings(outcome.report) as ReportFields;
}
