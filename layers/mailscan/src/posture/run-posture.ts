import type { ReportFinding } from '../catalogue.ts';
import { branch, derived } from '../dns/dependency-depth.ts';
import type { Resolver } from '../../../../lib/dns/resolver.ts';
import type { CheckError, PendingReputationInput, RecordedCheck, ReputationInput } from '../reputation/context.ts';
import { checkDkim, type DkimData } from './dkim-check.ts';
import { checkDmarc, type DmarcData } from './dmarc-check.ts';
import { checkMx, type MxData } from './mx-check.ts';
import { scorePosture, type Grade, type PostureScore } from './score.ts';
import { checkSpf, type SpfData } from './spf/spf-check.ts';

export interface PostureSurface {
  status: 'ok' | 'error';
  score: number | null;
  grade: Grade | null;
  score_breakdown: PostureScore['breakdown'];
  spf: SpfData;
  dkim: DkimData;
  dmarc: DmarcData;
  mx: MxData;
}

export interface PostureResult {
  surface: PostureSurface;
  findings: ReportFinding[];
  errors: CheckError[];
  /** What the reputation checks need, so they resolve nothing twice. */
  reputationInput: ReputationInput;
  /** False when not one question about the domain itself got an answer: the scan could not start. */
  domainAnswered: boolean;
  /** SPF, DMARC and DKIM as they ran (the report's `checks`). */
  checks: RecordedCheck[];
}

const SPF_RULES = [
  'mailscan.spf.missing',
  'mailscan.spf.permissive_all',
  'mailscan.spf.multiple_records',
  'mailscan.spf.void_lookup_limit',
];
const DMARC_RULES = ['mailscan.dmarc.missing', 'mailscan.dmarc.policy_none'];
const DKIM_RULES = ['mailscan.dkim.not_found', 'mailscan.dkim.unreadable_key'];

/** One posture component's check: an error of that component, else what it read. */
function recorded(rules: readonly string[], errors: readonly CheckError[], ran: string, selectors?: readonly string[]): RecordedCheck {
  if (errors.length > 0) return { rules, outcome: 'error', detail: errors.map((error) => error.message).join('; ') };
  return { rules, outcome: 'ran', detail: ran, ...(selectors ? { selectors } : {}) };
}

/** SPF, DMARC, DKIM and MX are independent: all four start at once. */
export async function runPosture(domain: string, resolver: Resolver, dkimSelectors: readonly string[]): Promise<PostureResult> {
  return startPosture(domain, resolver, dkimSelectors).result;
}

/**
 * Starts posture and hands out, beside the whole result, each reputation input as soon as the
 * check that produces it is done, so reputation need not wait for the slowest posture check.
 */
export function startPosture(
  domain: string,
  resolver: Resolver,
  dkimSelectors: readonly string[],
): { pending: PendingReputationInput; result: Promise<PostureResult> } {
  const spfRun = branch(() => checkSpf(domain, resolver));
  const dmarcRun = branch(() => checkDmarc(domain, resolver));
  const dkimRun = branch(() => checkDkim(domain, dkimSelectors, resolver));
  const mxRun = branch(() => checkMx(domain, resolver));
  const pending: PendingReputationInput = {
    domain,
    mx: derived(mxRun, (mx) => mx.data.hosts),
    spfLookups: derived(spfRun, (spf) => spf.lookupsForLimit),
    dkimKeys: derived(dkimRun, (dkim) => dkim.keysForReputation),
  };
  // A posture bug surfaces through `result`; these copies must not also crash the process unheard.
  for (const field of [pending.mx, pending.spfLookups, pending.dkimKeys]) field.catch(() => undefined);
  return {
    pending,
    result: Promise.all([spfRun, dmarcRun, dkimRun, mxRun]).then(([spf, dmarc, dkim, mx]) => assemble(domain, spf, dmarc, dkim, mx)),
  };
}

function assemble(
  domain: string,
  spf: Awaited<ReturnType<typeof checkSpf>>,
  dmarc: Awaited<ReturnType<typeof checkDmarc>>,
  dkim: Awaited<ReturnType<typeof checkDkim>>,
  mx: Awaited<ReturnType<typeof checkMx>>,
): PostureResult {
  const errors = [...spf.errors, ...dmarc.errors, ...dkim.errors, ...mx.errors];
  const score = scorePosture(spf.data, dmarc.data, dkim.data);
  return {
    surface: {
      status: errors.length > 0 ? 'error' : 'ok',
      score: score.score,
      grade: score.grade,
      score_breakdown: score.breakdown,
      spf: spf.data,
      dkim: dkim.data,
      dmarc: dmarc.data,
      mx: mx.data,
    },
    findings: [...spf.findings, ...dmarc.findings, ...dkim.findings],
    errors,
    reputationInput: {
      domain,
      mx: mx.data.hosts,
      spfLookups: spf.lookupsForLimit,
      dkimKeys: dkim.keysForReputation,
    } satisfies ReputationInput,
    domainAnswered: spf.answered || dmarc.answered || mx.answered,
    checks: [
      recorded(
        SPF_RULES,
        spf.errors,
        spf.data.record === null
          ? `no SPF record at ${domain}`
          : `SPF record at ${domain}: ${spf.data.record} (${spf.data.lookups} lookups, ${spf.data.void_lookups} void)`,
      ),
      recorded(
        DMARC_RULES,
        dmarc.errors,
        dmarc.data.record === null
          ? `no DMARC record at _dmarc.${domain}`
          : `DMARC record${dmarc.data.source === 'organizational' ? ' (organizational domain)' : ''}: ${dmarc.data.record}`,
      ),
      recorded(
        DKIM_RULES,
        dkim.errors,
        `${dkim.data.selectors_probed} selectors probed; keys at ${dkim.data.keys.map((key) => key.selector).join(', ') || 'none'}`,
        // Every selector that answered was examined, with a key or without: an issue at a selector whose record is gone resolves.
        dkim.selectorsAnswered,
      ),
    ],
  };
}
