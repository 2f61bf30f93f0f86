import { finding, type ReportFinding } from '../catalogue.ts';
import { inParallel } from '../dns/dependency-depth.ts';
import type { Resolver } from '../../../../lib/dns/resolver.ts';
import type { CheckError, ReputationInput } from '../reputation/context.ts';
import { analyseDkimKey, isDkimRecord, type DkimKeyInfo } from './dkim-key.ts';

export interface DkimSelectorResult extends DkimKeyInfo {
  selector: string;
  record: string;
}

export interface DkimData {
  status: 'ok' | 'none' | 'temperror';
  selectors_probed: number;
  keys: DkimSelectorResult[];
  /** Selectors whose probe got no answer: a key may hide there. */
  unknown_selectors: string[];
}

export interface DkimCheck {
  data: DkimData;
  findings: ReportFinding[];
  errors: CheckError[];
  /** Usable keys for the reputation surface's weak-key rule. */
  keysForReputation: ReputationInput['dkimKeys'];
  /** The selectors whose probe got an answer, a key or none: what the check examined (its coverage). */
  selectorsAnswered: string[];
}

/** Probes every selector at once: each is one independent TXT query. */
export async function checkDkim(domain: string, selectors: readonly string[], resolver: Resolver): Promise<DkimCheck> {
  const probes = await inParallel(selectors, async (selector) => ({
    selector,
    answer: await resolver.query(`${selector}._domainkey.${domain}`, 'TXT'),
  }));
  const keys: DkimSelectorResult[] = [];
  const unknown: string[] = [];
  const errors: CheckError[] = [];
  let firstProblem = '';
  for (const { selector, answer } of probes) {
    if (answer.status === 'unknown') {
      unknown.push(selector);
      firstProblem ||= answer.message;
      continue;
    }
    const record = answer.status === 'found' ? answer.records.find(isDkimRecord) : undefined;
    if (record !== undefined) keys.push({ selector, record, ...analyseDkimKey(record) });
  }
  // One entry, not one per selector: a dead resolver would otherwise list forty near-identical errors.
  if (unknown.length > 0) {
    errors.push({
      surface: 'posture',
      check: 'dkim',
      message: `no answer for ${unknown.length} of ${selectors.length} selectors (${unknown.join(', ')}): ${firstProblem}`,
    });
  }
  // A key that cannot be read verifies nothing: it is a finding, and never counts as DKIM present.
  const unreadable = keys.filter((key) => !key.revoked && key.problem !== undefined);
  const usable = keys.filter((key) => !key.revoked && key.problem === undefined);
  const status = usable.length > 0 ? 'ok' : unknown.length > 0 ? 'temperror' : 'none';
  const findings = unreadable.map((key) =>
    finding(
      'mailscan.dkim.unreadable_key',
      'medium',
      `DKIM selector ${key.selector} publishes a key that cannot be used: ${key.problem}.`,
      {
        domain,
        selector: key.selector,
        key_type: key.key_type,
        problem: key.problem,
      },
    ),
  );
  if (status === 'none') {
    const published = unreadable.length > 0 ? ` (${unreadable.length} publish an unreadable one)` : '';
    findings.push(
      finding(
        'mailscan.dkim.not_found',
        'medium',
        `None of the ${selectors.length} probed selectors publishes a usable DKIM key for ${domain}${published}.`,
        {
          domain,
          selectors_probed: selectors.length,
          revoked: keys.filter((key) => key.revoked).map((key) => key.selector),
          unreadable: unreadable.map((key) => key.selector),
        },
      ),
    );
  }
  return {
    data: { status, selectors_probed: selectors.length, keys, unknown_selectors: unknown },
    findings,
    errors,
    selectorsAnswered: selectors.filter((selector) => !unknown.includes(selector)),
    keysForReputation: usable.map((key) => ({
      selector: key.selector,
      keyType: key.key_type,
      bits: key.bits,
      hashAlgorithms: key.hash_algorithms,
    })),
  };
}
