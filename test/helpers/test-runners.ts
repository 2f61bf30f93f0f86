import type { RunnerFinding } from '../../shared/domain/finding.ts';
import type { RunnerInput, RunnerResult, ScanRunner } from '../../shared/ports/scan-runner.ts';

export function finding(n: number, overrides: Partial<RunnerFinding> = {}): RunnerFinding {
  return {
    rule_id: `test.rule_${n % 3}`,
    severity: (['high', 'medium', 'low'] as const)[n % 3],
    title: `finding ${n}`,
    description: `the ${n}th thing`,
    evidence: { n },
    remediation: 'fix it',
    ...overrides,
  };
}

/** A runner a test programs: what it returns, or throws, per call; it records every call. */
export class ScriptedRunner implements ScanRunner {
  readonly name = 'scripted';
  calls: RunnerInput[] = [];
  /** Called with each input; its result is the runner's. */
  behaviour: (input: RunnerInput, call: number) => Promise<RunnerResult> = async () => ({ findings: [finding(1), finding(2)] });

  async run(input: RunnerInput): Promise<RunnerResult> {
    this.calls.push(input);
    return this.behaviour(input, this.calls.length);
  }
}
