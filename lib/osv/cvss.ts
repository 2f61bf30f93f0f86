/**
 * CVSS v3.0/v3.1 base score from a vector string (the FIRST specification, §7.1 and Appendix A
 * rounding), and the severity bands DESIGN §11 uses: 9.0+ critical, 7.0+ high, 4.0+ medium,
 * else low. OSV records carry the vector, not the number.
 */
const WEIGHTS = {
  AV: { N: 0.85, A: 0.62, L: 0.55, P: 0.2 },
  AC: { L: 0.77, H: 0.44 },
  UI: { N: 0.85, R: 0.62 },
  C: { H: 0.56, L: 0.22, N: 0 },
} as const;

/** Appendix A: the smallest number, to one decimal, equal to or higher than its input. */
function roundUp(value: number): number {
  const integer = Math.round(value * 100_000);
  return integer % 10_000 === 0 ? integer / 100_000 : (Math.floor(integer / 10_000) + 1) / 10;
}

/** The base score of a `CVSS:3.x/...` vector, or undefined when it is not a complete v3 vector. */
export function cvss3BaseScore(vector: string): number | undefined {
  const parts = vector.trim().split('/');
  if (!/^CVSS:3\.[01]$/.test(parts[0] ?? '')) return undefined;
  const metrics = new Map<string, string>();
  for (const part of parts.slice(1)) {
    const [key, value] = part.split(':');
    if (key && value) metrics.set(key, value);
  }
  const get = <T extends Record<string, number>>(table: T, key: string): number | undefined => {
    const value = metrics.get(key);
    return value !== undefined && value in table ? table[value as keyof T] : undefined;
  };
  const scope = metrics.get('S');
  if (scope !== 'U' && scope !== 'C') return undefined;
  const changed = scope === 'C';
  const av = get(WEIGHTS.AV, 'AV');
  const ac = get(WEIGHTS.AC, 'AC');
  const ui = get(WEIGHTS.UI, 'UI');
  const pr = get(changed ? { N: 0.85, L: 0.68, H: 0.5 } : { N: 0.85, L: 0.62, H: 0.27 }, 'PR');
  const c = get(WEIGHTS.C, 'C');
  const i = get(WEIGHTS.C, 'I');
  const a = get(WEIGHTS.C, 'A');
  if ([av, ac, ui, pr, c, i, a].some((v) => v === undefined)) return undefined;
  const iss = 1 - (1 - c!) * (1 - i!) * (1 - a!);
  const impact = changed ? 7.52 * (iss - 0.029) - 3.25 * (iss - 0.02) ** 15 : 6.42 * iss;
  const exploitability = 8.22 * av! * ac! * pr! * ui!;
  if (impact <= 0) return 0;
  return changed ? roundUp(Math.min(1.08 * (impact + exploitability), 10)) : roundUp(Math.min(impact + exploitability, 10));
}

export type CvssSeverity = 'critical' | 'high' | 'medium' | 'low';

/** DESIGN §11's bands. A score of 0 (no impact) is still low: the record says it is a vulnerability. */
export function severityOfScore(score: number): CvssSeverity {
  if (score >= 9) return 'critical';
  if (score >= 7) return 'high';
  if (score >= 4) return 'medium';
  return 'low';
}
