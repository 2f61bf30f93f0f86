import type { HeaderLimits } from '../../../../lib/mail-artifacts/header-limits.ts';
import { tagsOf, valueOf, type RawHeaderField } from '../../../../lib/mail-artifacts/message-header.ts';

const COMPONENTS = ['arc-authentication-results', 'arc-message-signature', 'arc-seal'] as const;
const SHORT: Record<(typeof COMPONENTS)[number], string> = {
  'arc-authentication-results': 'AAR',
  'arc-message-signature': 'AMS',
  'arc-seal': 'AS',
};

export interface ArcSetSummary {
  i: number;
  components: string[];
  /** The seal's chain-validation value. */
  cv: string | null;
  /** Signing domain and selector of the seal. */
  d: string | null;
  s: string | null;
}

export interface ArcAnomaly {
  severity: 'high' | 'medium';
  detail: string;
  kind: 'gap' | 'missing_component' | 'duplicate_component' | 'bad_instance' | 'cv_misuse';
  /** Where in the chain, so two anomalies of one kind are told apart: the set, the header, the instance as written. */
  i: number | null;
  component: string | null;
  instance?: string;
}

export interface ArcStructure {
  sets: ArcSetSummary[];
  anomalies: ArcAnomaly[];
  /** The highest instance's seal says the chain had already failed upstream. */
  finalCvFail: boolean;
}

/**
 * RFC 8617 §4–5 structure, independent of cryptography: instances 1..n with no gap, each with
 * exactly one AAR, AMS and AS, `cv=none` on i=1 and only there. Every problem is listed (mailauth,
 * which does the cryptography, stops at the first).
 */
export function arcStructure(fields: readonly RawHeaderField[], limits: HeaderLimits): ArcStructure {
  const sets = new Map<number, { components: Map<string, number>; cv: string | null; d: string | null; s: string | null }>();
  const anomalies: ArcAnomaly[] = [];
  for (const field of fields) {
    if (!(COMPONENTS as readonly string[]).includes(field.key)) continue;
    const key = field.key as (typeof COMPONENTS)[number];
    const value = valueOf(field);
    const instanceText = key === 'arc-authentication-results' ? /(?:^|;)\s*i\s*=\s*([^;\s]*)/i.exec(value)?.[1] : tagsOf(value).get('i');
    const instance = Number(instanceText);
    if (!Number.isInteger(instance) || instance < 1 || instance > limits.maxArcSets) {
      anomalies.push({
        kind: 'bad_instance',
        severity: 'medium',
        i: null,
        component: SHORT[key],
        instance: instanceText ?? '',
        detail: `${SHORT[key]} with instance "${instanceText ?? ''}" outside 1..${limits.maxArcSets}`,
      });
      continue;
    }
    const set = sets.get(instance) ?? { components: new Map<string, number>(), cv: null, d: null, s: null };
    set.components.set(key, (set.components.get(key) ?? 0) + 1);
    if (key === 'arc-seal') {
      const tags = tagsOf(value);
      set.cv = tags.get('cv')?.toLowerCase() ?? null;
      set.d = tags.get('d')?.toLowerCase() ?? null;
      set.s = tags.get('s') ?? null;
    }
    sets.set(instance, set);
  }
  const instances = [...sets.keys()].sort((a, b) => a - b);
  const highest = instances.at(-1) ?? 0;
  for (let i = 1; i <= highest; i++) {
    const set = sets.get(i);
    if (set === undefined) {
      anomalies.push({
        kind: 'gap',
        severity: 'high',
        i,
        component: null,
        detail: `ARC set i=${i} is missing: the chain has instances ${instances.join(', ')}`,
      });
      continue;
    }
    for (const component of COMPONENTS) {
      const count = set.components.get(component) ?? 0;
      if (count === 0)
        anomalies.push({
          kind: 'missing_component',
          severity: 'high',
          i,
          component: SHORT[component],
          detail: `ARC set i=${i} has no ${SHORT[component]}`,
        });
      if (count > 1)
        anomalies.push({
          kind: 'duplicate_component',
          severity: 'high',
          i,
          component: SHORT[component],
          detail: `ARC set i=${i} has ${count} ${SHORT[component]} headers`,
        });
    }
    if (set.components.has('arc-seal')) {
      if (i === 1 && set.cv !== 'none')
        anomalies.push({
          kind: 'cv_misuse',
          severity: 'medium',
          i,
          component: 'AS',
          detail: `ARC set i=1 has cv=${set.cv ?? '(none given)'}; the first seal must say cv=none`,
        });
      if (i > 1 && set.cv === 'none')
        anomalies.push({
          kind: 'cv_misuse',
          severity: 'medium',
          i,
          component: 'AS',
          detail: `ARC set i=${i} has cv=none, which only i=1 may carry`,
        });
    }
  }
  return {
    sets: instances.map((i) => {
      const set = sets.get(i)!;
      return {
        i,
        components: COMPONENTS.filter((component) => set.components.has(component)).map((component) => SHORT[component]),
        cv: set.cv,
        d: set.d,
        s: set.s,
      };
    }),
    anomalies,
    finalCvFail: sets.get(highest)?.cv === 'fail',
  };
}
