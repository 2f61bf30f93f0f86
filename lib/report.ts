import * as z from 'zod';
import { CHECK_STATUSES, type CheckStatus } from './check-status.ts';
import { SEVERITIES, type Severity } from './severity.ts';

/**
 * The common report of every engine (DESIGN §11, docs/engine-contract.md): one check per
 * catalogue rule, so a clean result reads "these N checks passed" and an issue resolves only when
 * a later scan's check for its rule passed.
 */
export type ReportStatus = 'ok' | 'partial' | 'error';

/**
 * What a check examined (DESIGN §11, §15): the tracker resolves an issue on a check's `pass` (or
 * `fail` for other subjects) only when every location of the issue lies inside this. Kinds:
 * - `network`: per protocol, the hosts (addresses, CIDRs or names) and ports scanned ("22,80,8000-8100");
 *   covers locations `tcp:<host>:<port>` (IPv6 in brackets).
 * - `repository`: the branch read, whether its history was read and whether to its root, and the
 *   globs of paths not read; covers `git:<ref>:head:<path>` when the branch matches and the path is
 *   not ignored, and `git:<ref>:history:<path>` only when the whole history was read as well.
 * - `mail`: the surfaces run, the DKIM selectors probed and the lists queried; covers `mail:<surface>`,
 *   `dkim:<selector>` and `list:<name>` locations of the same domain.
 * - `web`: the paths (with their query) of one origin a web check examined; covers `web:<path>` of
 *   those paths only, so a smaller crawl resolves nothing on a page it did not fetch.
 * - `target`: the check examined the whole target; covers every location.
 */
export type Coverage =
  | { kind: 'network'; scanned: { protocol: 'tcp' | 'udp'; hosts: string[]; ports: string }[] }
  | { kind: 'repository'; ref: string; history: { read: boolean; commits: number; complete: boolean }; paths_ignored: string[] }
  | { kind: 'mail'; surfaces: string[]; selectors: string[]; lists: string[] }
  | { kind: 'web'; origin: string; paths: string[] }
  | { kind: 'target' };

export interface Check {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
  /** What the check examined; absent for a check that did not run (skipped) or an engine that does not say: then it resolves nothing. */
  coverage?: Coverage;
}

export interface EngineFinding {
  rule_id: string;
  severity: Severity;
  title: string;
  detail: string;
  evidence: Record<string, unknown>;
  remediation: string;
  /** The engine's name for "the same problem" within the target; the service hashes it into the fingerprint. */
  fingerprint_key: string;
  /** The problem's place in words (host:port, path:line, record, URL path, package): shown in titles, lists and events. */
  subject?: string;
  /** Where the problem was seen, in the location forms of `Coverage`; a later check resolves it only when it covers them all. */
  locations?: string[];
  /**
   * The engine's name for this finding within the report, where another finding refers to it: a
   * finding whose `evidence.base_fingerprint` equals it gets this one's stored fingerprint there
   * (mailscan's adversary findings name the finding they were derived from).
   */
  ref?: string;
}

export interface EngineError {
  check: string;
  message: string;
}

export interface EngineReport {
  scanner: { name: string; version: string };
  target: string;
  started_at: string;
  finished_at: string;
  status: ReportStatus;
  checks: Check[];
  findings: EngineFinding[];
  errors: EngineError[];
  /** Documents a scan produces beside its findings (sbomscan's CycloneDX SBOM), by the manifest's output name. */
  outputs?: Record<string, unknown>;
  /** Figures of the whole scan (mailscan's posture `score` and `grade`); the runner keeps those the manifest's `summaryMetrics` name. */
  summary?: Record<string, string | number>;
  /**
   * The target turned out not to be scannable at all, in words (mailscan: the domain does not
   * exist): the report still says what it saw, and the runner fails the target with this message.
   */
  failure?: string;
}

/** One entry of an engine's finding catalogue (printed by `<engine> rules`, docs/findings.md). */
export interface Rule {
  rule_id: string;
  severity: Severity;
  title: string;
  /** When it fires. */
  description: string;
  remediation: string;
  /** The severity is computed per finding (e.g. from CVSS); `severity` is then the catalogue's default. */
  computed_severity?: boolean;
  /** Every severity a computed rule can carry, most severe first, where the engine knows them (mailscan). */
  severities?: readonly Severity[];
  /** What the rule is about (`tls`, `surface:posture`, `origin:spec`), for filters and docs/findings.md. */
  tags: readonly string[];
  /** Where the problem and its fix are described: RFCs, advisories, cheat sheets (https URLs), at least one. */
  references: readonly string[];
  /** The weakness it is an instance of (`CWE-295`), where one applies. */
  cwe?: string;
  /** How sure a finding of this rule is: `high` for what the scan observed, `medium`/`low` for heuristic rules. */
  confidence: Confidence;
}

export const CONFIDENCES = ['high', 'medium', 'low'] as const;
export type Confidence = (typeof CONFIDENCES)[number];

/** A rule's metadata (DESIGN §11 'Rule metadata'), kept beside a catalogue by rule id. */
export type RuleMetadata = Pick<Rule, 'tags' | 'references' | 'cwe' | 'confidence'>;

/** A port list as ranges text ("22,80,8000-8002") for a `network` coverage: top1000 stays a few KB. */
export function portRanges(ports: Iterable<number>): string {
  const sorted = [...new Set(ports)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j += 1;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

const Bounded = (max: number) => z.string().max(max);

const Names = z.array(Bounded(300)).max(4096);
/** The coverage schema (`Coverage`). */
export function coverageSchema(): z.ZodType<Coverage> {
  return z.discriminatedUnion('kind', [
    z.object({
      kind: z.literal('network'),
      scanned: z.array(z.object({ protocol: z.enum(['tcp', 'udp']), hosts: Names, ports: Bounded(20_000) })).max(4),
    }),
    z.object({
      kind: z.literal('repository'),
      ref: Bounded(300),
      history: z.object({ read: z.boolean(), commits: z.number().int().nonnegative(), complete: z.boolean() }),
      paths_ignored: Names,
    }),
    z.object({ kind: z.literal('mail'), surfaces: Names, selectors: Names, lists: Names }),
    z.object({ kind: z.literal('web'), origin: Bounded(2000), paths: z.array(Bounded(2000)).max(4096) }),
    z.object({ kind: z.literal('target') }),
  ]);
}

let schema: z.ZodType<EngineReport> | undefined;
/** The report's zod schema, built at first use (the runner parses every engine's stdout with it). */
export function engineReportSchema(): z.ZodType<EngineReport> {
  return (schema ??= z.object({
    scanner: z.object({ name: Bounded(100), version: Bounded(100) }),
    target: Bounded(4096),
    started_at: Bounded(40),
    finished_at: Bounded(40),
    status: z.enum(['ok', 'partial', 'error']),
    checks: z
      .array(
        z.object({
          id: Bounded(200),
          title: Bounded(500),
          status: z.enum(CHECK_STATUSES),
          detail: Bounded(10_000),
          coverage: coverageSchema().optional(),
        }),
      )
      .max(10_000),
    findings: z
      .array(
        z.object({
          rule_id: Bounded(200),
          severity: z.enum(SEVERITIES),
          title: Bounded(500),
          detail: Bounded(10_000),
          evidence: z.record(z.string(), z.unknown()),
          remediation: Bounded(10_000),
          // mailscan's key is its finding's evidence as canonical JSON where it names no shorter one, as the stored fingerprints always were.
          fingerprint_key: Bounded(16_000),
          subject: Bounded(1000).optional(),
          locations: z.array(Bounded(1200)).max(100).optional(),
          ref: Bounded(200).optional(),
        }),
      )
      .max(100_000),
    errors: z.array(z.object({ check: Bounded(200), message: Bounded(10_000) })).max(10_000),
    outputs: z.record(z.string().max(100), z.unknown()).optional(),
    summary: z.record(Bounded(100), z.union([Bounded(1000), z.number()])).optional(),
    failure: Bounded(10_000).optional(),
  }) as z.ZodType<EngineReport>);
}

/** The finding's own fields; rule id, severity, title and remediation default to the catalogue's. */
export interface FindingInput {
  detail: string;
  evidence: Record<string, unknown>;
  fingerprint_key: string;
  /** In words; defaults to `fingerprint_key` (right for host:port keys, wrong for a secret's hash). */
  subject?: string;
  /** In `Coverage`'s location forms. */
  locations?: string[];
  title?: string;
  severity?: Severity;
  remediation?: string;
}

interface CheckState {
  findings: number;
  errors: string[];
  passed: string[];
  skipped: string[];
  /** Coverage given with `pass` for this rule; the scan-wide coverage applies when none was. */
  coverage?: Coverage;
}

/**
 * Collects a scan's results rule by rule and builds the report with the contract's rules: a rule
 * with a finding is `fail`; else with an error `error`; else `pass` if it ran; else `skipped`.
 * A rule that is not in the catalogue throws: a typo is a bug, not a new rule.
 */
export interface ReportBuilderOptions {
  scanner: { name: string; version: string };
  target: string;
  catalogue: readonly Rule[];
  now?: () => Date;
}

export class ReportBuilder {
  private readonly rules: Map<string, Rule>;
  private readonly states = new Map<string, CheckState>();
  private readonly findings: EngineFinding[] = [];
  private readonly errors: EngineError[] = [];
  private readonly outputs: Record<string, unknown> = {};
  private readonly startedAt: string;
  private scanCoverage?: Coverage;
  private readonly options: ReportBuilderOptions;

  // No parameter property: the CDK app loads this module through Node's type stripping, which refuses them.
  constructor(options: ReportBuilderOptions) {
    this.options = options;
    this.rules = new Map(options.catalogue.map((rule) => [rule.rule_id, rule]));
    this.startedAt = this.now().toISOString();
  }

  private now(): Date {
    return this.options.now?.() ?? new Date();
  }

  private state(ruleId: string): CheckState {
    if (!this.rules.has(ruleId)) throw new Error(`rule ${ruleId} is not in the catalogue`);
    let state = this.states.get(ruleId);
    if (!state) this.states.set(ruleId, (state = { findings: 0, errors: [], passed: [], skipped: [] }));
    return state;
  }

  rule(ruleId: string): Rule {
    const rule = this.rules.get(ruleId);
    if (!rule) throw new Error(`rule ${ruleId} is not in the catalogue`);
    return rule;
  }

  /**
   * The rule's check ran and found nothing: `detail` says why it passed in words (what was read,
   * where: "TLS 1.0 refused", "SPF record read: v=spf1 -all"), never empty or a bare "ok" (issue 41
   * item 4); `coverage` says what it examined. A pass that says nothing is a bug in the engine, and
   * throws (the frame then reports the scan's unfinished checks as errors, never a silent pass).
   */
  pass(ruleId: string, detail: string, coverage?: Coverage): this {
    if (detail.trim() === '' || /^ok\.?$/i.test(detail.trim()))
      throw new Error(`${ruleId} passed without saying why: a pass's detail says what was read`);
    const state = this.state(ruleId);
    state.passed.push(detail);
    if (coverage !== undefined) state.coverage = coverage;
    return this;
  }

  /** What this rule's check examined, whatever it found (a check that failed on some places and passed on others). */
  examined(ruleId: string, coverage: Coverage): this {
    this.state(ruleId).coverage = coverage;
    return this;
  }

  /**
   * What every check that ran examined, unless its `pass` said otherwise (netscan: the hosts and
   * ports scanned; secretscan: the branch, history and ignored paths). A check without coverage
   * resolves nothing, so an engine that never says what it covered never closes an issue.
   */
  covered(coverage: Coverage): this {
    this.scanCoverage = coverage;
    return this;
  }

  /** The rule fired. */
  fail(ruleId: string, finding: FindingInput): this {
    const rule = this.rule(ruleId);
    this.state(ruleId).findings += 1;
    this.findings.push({
      rule_id: ruleId,
      severity: finding.severity ?? rule.severity,
      title: finding.title ?? rule.title,
      detail: finding.detail,
      evidence: finding.evidence,
      remediation: finding.remediation ?? rule.remediation,
      fingerprint_key: finding.fingerprint_key,
      subject: finding.subject ?? finding.fingerprint_key,
      ...(finding.locations === undefined ? {} : { locations: finding.locations }),
    });
    return this;
  }

  /** These rules' checks could not complete; one `errors` entry per rule. */
  error(ruleIds: string | readonly string[], message: string): this {
    for (const ruleId of typeof ruleIds === 'string' ? [ruleIds] : ruleIds) {
      this.state(ruleId).errors.push(message);
      this.errors.push({ check: ruleId, message });
    }
    return this;
  }

  /** These rules' checks did not run, and why (out of scope, not applicable). */
  skip(ruleIds: string | readonly string[], why: string): this {
    for (const ruleId of typeof ruleIds === 'string' ? [ruleIds] : ruleIds) this.state(ruleId).skipped.push(why);
    return this;
  }

  /** A document the scan produced (the manifest names its outputs); the report carries it as `outputs[name]`. */
  output(name: string, value: unknown): this {
    this.outputs[name] = value;
    return this;
  }

  /** Every rule that has no result yet becomes an error with `message` (e.g. the deadline passed). */
  errorUnfinished(message: string): this {
    for (const ruleId of this.rules.keys()) {
      const state = this.states.get(ruleId);
      if (!state || (state.findings === 0 && state.errors.length === 0 && state.passed.length === 0 && state.skipped.length === 0)) {
        this.error(ruleId, message);
      }
    }
    return this;
  }

  checkStatus(ruleId: string): CheckStatus {
    const state = this.states.get(ruleId);
    if (!state) return 'skipped';
    if (state.findings > 0) return 'fail';
    if (state.errors.length > 0) return 'error';
    if (state.passed.length > 0) return 'pass';
    return 'skipped';
  }

  finish(): EngineReport {
    const checks: Check[] = [...this.rules.values()].map((rule) => {
      const status = this.checkStatus(rule.rule_id);
      const state = this.states.get(rule.rule_id);
      const detail =
        status === 'fail'
          ? `${state!.findings} finding${state!.findings === 1 ? '' : 's'}`
          : status === 'error'
            ? unique(state!.errors).join('; ')
            : status === 'pass'
              ? unique(state!.passed).join('; ')
              : (state ? unique(state.skipped) : ['not run']).join('; ');
      const coverage = status === 'pass' || status === 'fail' ? (state?.coverage ?? this.scanCoverage) : undefined;
      return { id: rule.rule_id, title: rule.title, status, detail: detail.slice(0, 10_000), ...(coverage ? { coverage } : {}) };
    });
    const completed = checks.some((check) => check.status === 'pass' || check.status === 'fail');
    const status: ReportStatus = this.errors.length === 0 ? 'ok' : completed ? 'partial' : 'error';
    return {
      scanner: this.options.scanner,
      target: this.options.target,
      started_at: this.startedAt,
      finished_at: this.now().toISOString(),
      status,
      checks,
      findings: this.findings,
      errors: this.errors,
      ...(Object.keys(this.outputs).length > 0 ? { outputs: this.outputs } : {}),
    };
  }
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}
