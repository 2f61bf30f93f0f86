import type { DkimData } from './dkim-check.ts';
import type { DmarcData } from './dmarc-check.ts';
import type { SpfData } from './spf/spf-check.ts';

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F';

export interface PostureScore {
  /** 0-100; null when a component could not be determined (a DNS answer was missing). */
  score: number | null;
  grade: Grade | null;
  /** Points per component, so the report explains the total. */
  breakdown: { spf: number | null; dmarc: number | null; dkim: number | null };
}

/**
 * The documented formula (docs/mailscan.md, "Score"): SPF 35, DMARC 40, DKIM 25 points.
 * A component whose check got no answer makes the score null rather than guessing: a DNS timeout
 * must not look like a weak configuration.
 */
export function scorePosture(spf: SpfData, dmarc: DmarcData, dkim: DkimData): PostureScore {
  const breakdown = { spf: spfPoints(spf), dmarc: dmarcPoints(dmarc), dkim: dkimPoints(dkim) };
  if (breakdown.spf === null || breakdown.dmarc === null || breakdown.dkim === null) return { score: null, grade: null, breakdown };
  const score = breakdown.spf + breakdown.dmarc + breakdown.dkim;
  return { score, grade: gradeOf(score), breakdown };
}

export function gradeOf(score: number): Grade {
  if (score >= 90) return 'A';
  if (score >= 80) return 'B';
  if (score >= 70) return 'C';
  if (score >= 60) return 'D';
  return 'F';
}

/** 15 one parseable record, 10 for -all (8 for ~all), 5 within 10 lookups, 5 within 2 void lookups; +all scores 0. */
function spfPoints(spf: SpfData): number | null {
  // A redirect that could not be followed leaves the all term unknown: not a weak configuration.
  if (spf.status === 'temperror' || (spf.all_known === false && spf.tree?.status === 'ok' && spf.records.length === 1)) return null;
  if (spf.tree?.status !== 'ok' || spf.records.length !== 1 || spf.all === '+all') return 0;
  const all = spf.all === '-all' ? 10 : spf.all === '~all' ? 8 : 0;
  const lookups = spf.lookups <= spf.lookup_limit && spf.loops.length === 0 ? 5 : 0;
  const voids = spf.void_lookups <= spf.void_lookup_limit ? 5 : 0;
  return 15 + all + lookups + voids;
}

/** 15 a usable record, 15 for reject (10 quarantine), 5 for pct=100 on an enforcing policy, 5 for rua reporting. */
function dmarcPoints(dmarc: DmarcData): number | null {
  if (dmarc.status === 'temperror') return null;
  if (dmarc.status !== 'ok' || dmarc.tags === null) return 0;
  const policy = dmarc.policy === 'reject' ? 15 : dmarc.policy === 'quarantine' ? 10 : 0;
  const pct = dmarc.policy !== 'none' && dmarc.tags.pct === 100 ? 5 : 0;
  const reporting = dmarc.report_destinations.some((destination) => destination.kind === 'rua' && destination.authorized !== false) ? 5 : 0;
  return 15 + policy + pct + reporting;
}

/** 15 at least one key, 10 if the strongest is Ed25519 or RSA of 2048+ bits (5 for 1024-2047). */
function dkimPoints(dkim: DkimData): number | null {
  if (dkim.status === 'temperror') return null;
  const usable = dkim.keys.filter((key) => !key.revoked && key.problem === undefined);
  if (usable.length === 0) return 0;
  const strength = Math.max(
    ...usable.map((key) => {
      if (key.key_type === 'ed25519' && key.bits !== null) return 10;
      if (key.key_type === 'rsa' && key.bits !== null) return key.bits >= 2048 ? 10 : key.bits >= 1024 ? 5 : 0;
      return 0;
    }),
  );
  return 15 + strength;
}
