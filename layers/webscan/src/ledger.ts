/**
 * Between the checks and the kit's ReportBuilder: a check reports each instance of a rule on a
 * path; `ignore` entries of the scope suppress a rule on matching paths (and the check's detail
 * says what was suppressed); instances with the same key merge into one finding listing their
 * paths; and each rule counts what it examined, so its check says "examined N pages" when it
 * passes and is `skipped`, never `pass`, when nothing it applies to was examined.
 */
import type { Coverage, FindingInput, ReportBuilder } from '../../../lib/report.ts';
import type { Severity } from '../../../lib/severity.ts';
import type { WebRuleId } from './catalogue.ts';
import { globMatcher } from './glob.ts';

export interface Instance {
  /** The path (with query) where it was seen. */
  path: string;
  /** The finding it belongs to within the target: instances with one key are one finding. */
  key: string;
  detail: string;
  evidence: Record<string, unknown>;
  severity?: Severity;
  title?: string;
}

interface RuleState {
  examined: Set<string>;
  findings: Map<string, { instance: Instance; paths: string[]; count: number }>;
  suppressed: Map<string, number>;
  errors: string[];
  skipped?: string;
  /** What the check examined, when it is not pages (e.g. "OPTIONS on 4 paths"). */
  note?: string;
}

const MAX_PATHS_PER_FINDING = 20;

export class Ledger {
  private readonly states = new Map<WebRuleId, RuleState>();
  private readonly ignores: { rule_id: WebRuleId; match: (path: string) => boolean; reason: string; path: string }[];

  constructor(ignore: readonly { rule_id: WebRuleId; path: string; reason: string }[] = []) {
    this.ignores = ignore.map((entry) => ({ ...entry, match: globMatcher(entry.path) }));
  }

  private state(rule: WebRuleId): RuleState {
    let state = this.states.get(rule);
    if (!state) this.states.set(rule, (state = { examined: new Set(), findings: new Map(), suppressed: new Map(), errors: [] }));
    return state;
  }

  /** The rule's check looked at `path` (coverage). */
  examined(rule: WebRuleId, path: string): void {
    this.state(rule).examined.add(path);
  }

  note(rule: WebRuleId, text: string): void {
    this.state(rule).note = text;
  }

  found(rule: WebRuleId, instance: Instance): void {
    const state = this.state(rule);
    const pathOnly = instance.path.split('?')[0];
    const ignore = this.ignores.find((entry) => entry.rule_id === rule && entry.match(pathOnly));
    if (!ignore) state.examined.add(instance.path);
    if (ignore) {
      const label = `${ignore.path} (${ignore.reason})`;
      state.suppressed.set(label, (state.suppressed.get(label) ?? 0) + 1);
      return;
    }
    const existing = state.findings.get(instance.key);
    if (existing) {
      existing.count += 1;
      if (existing.paths.length < MAX_PATHS_PER_FINDING && !existing.paths.includes(instance.path)) existing.paths.push(instance.path);
    } else state.findings.set(instance.key, { instance, paths: [instance.path], count: 1 });
  }

  error(rules: WebRuleId | readonly WebRuleId[], message: string): void {
    for (const rule of typeof rules === 'string' ? [rules] : rules) {
      const { errors } = this.state(rule);
      if (!errors.includes(message) && errors.length < 20) errors.push(message);
    }
  }

  skip(rules: WebRuleId | readonly WebRuleId[], why: string): void {
    for (const rule of typeof rules === 'string' ? [rules] : rules) this.state(rule).skipped ??= why;
  }

  hasFinding(rule: WebRuleId): boolean {
    return (this.states.get(rule)?.findings.size ?? 0) > 0;
  }

  /**
   * What a rule's check examined, as the tracker reads it (DESIGN §15): the paths it fetched, less
   * those its `ignore` entries suppress (an ignored path is not looked at, so it resolves nothing).
   */
  private coverage(rule: WebRuleId, state: RuleState, origin: string): Coverage {
    // Every passive check inspects every response, so a path any check examined was looked at by this
    // one too (a listing that now answers 403 was fetched and is no listing); plus this rule's own probes.
    const seen = new Set([...state.examined, ...[...this.states.values()].flatMap((other) => [...other.examined])]);
    const paths = [...seen].filter((path) => !this.ignores.some((entry) => entry.rule_id === rule && entry.match(path.split('?')[0])));
    return { kind: 'web', origin, paths: paths.slice(0, 4096) };
  }

  /** Writes every rule's outcome into the report. `unit` names what a rule examined (pages by default). */
  record(report: ReportBuilder, rules: readonly WebRuleId[], suffix: string, origin: string): void {
    for (const rule of rules) {
      const state = this.states.get(rule);
      if (!state) {
        report.skip(rule, 'no response it applies to was found');
        continue;
      }
      for (const { instance, paths, count } of state.findings.values()) {
        const finding: FindingInput = {
          detail: count > 1 ? `${instance.detail} (${count} instances; first paths: ${paths.slice(0, 5).join(', ')})` : instance.detail,
          evidence: { ...instance.evidence, paths, instances: count },
          fingerprint_key: instance.key,
          subject: paths[0].split('?')[0],
          locations: paths.map((path) => `web:${path}`),
          ...(instance.severity ? { severity: instance.severity } : {}),
          ...(instance.title ? { title: instance.title } : {}),
        };
        report.fail(rule, finding);
      }
      const suppressed = [...state.suppressed].map(([label, count]) => `${count} on ${label}`).join(', ');
      const suppressedText = suppressed ? `; suppressed by ignore: ${suppressed}` : '';
      for (const message of state.errors) report.error(rule, message);
      // A check with findings still says what it covered: its other subjects resolve on it (DESIGN §15).
      // (The check's status is fail; this pass only carries the coverage, and its detail is not shown.)
      if (state.findings.size > 0 && state.errors.length === 0)
        report.pass(
          rule,
          `examined ${state.examined.size} path${state.examined.size === 1 ? '' : 's'}`,
          this.coverage(rule, state, origin),
        );
      if (state.findings.size > 0 || state.errors.length > 0) {
        if (suppressedText && state.findings.size === 0) report.pass(rule, suppressedText.slice(2), this.coverage(rule, state, origin));
        continue;
      }
      if (state.skipped && state.examined.size === 0) {
        report.skip(rule, state.skipped);
        continue;
      }
      if (state.examined.size === 0 && !state.note) {
        report.skip(rule, `no response it applies to was found${suppressedText}`);
        continue;
      }
      const coverage = state.note ?? `examined ${state.examined.size} path${state.examined.size === 1 ? '' : 's'}`;
      report.pass(rule, `${coverage}${suppressedText}${suffix}`, this.coverage(rule, state, origin));
    }
  }
}
