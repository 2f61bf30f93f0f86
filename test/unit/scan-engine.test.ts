import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ScanJobRecord } from '../../shared/domain/scan-job.ts';
import type { RunnerCheck, RunnerResult } from '../../shared/ports/scan-runner.ts';
import { MAX_STORED_CHECKS } from '../../shared/services/scan-engine.ts';
import { scanJobRecord } from '../contracts/scan-repository-contract.ts';
import { MARGIN_MS, deferred, heldRunner, scanPath } from '../helpers/scan-path.ts';
import { ScriptedRunner, finding } from '../helpers/test-runners.ts';

const ENOUGH_TIME = () => 60_000;

function manualJob(n: number, overrides: Partial<ScanJobRecord> = {}): ScanJobRecord {
  return scanJobRecord('acme', n, overrides);
}

async function queued(path: ReturnType<typeof scanPath>, job: ScanJobRecord): Promise<ScanJobRecord> {
  await path.scans.create(job);
  return job;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('scan engine on in-memory fakes', () => {
  it('runs every target within the concurrency bound and lists findings and errors in target order', async () => {
    const gates = new Map<string, ReturnType<typeof deferred<RunnerResult>>>();
    let inFlight = 0;
    let most = 0;
    const runner = new ScriptedRunner();
    runner.behaviour = async ({ target }) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      const gate = deferred<RunnerResult>();
      gates.set(target, gate);
      try {
        return await gate.promise;
      } finally {
        inFlight -= 1;
      }
    };
    const path = scanPath({ runner, targetConcurrency: 2 });
    const job = await queued(path, manualJob(1, { target: 'a.example', targets: ['b.example', 'c.example', 'd.example'] }));

    const running = path.engine.execute(job, ENOUGH_TIME);
    // Finish them last first: the order of the results must not follow.
    for (const target of ['b.example', 'a.example', 'd.example', 'c.example']) {
      while (!gates.has(target)) await new Promise<void>((resolve) => setImmediate(resolve));
      if (target === 'd.example') gates.get(target)!.resolve({ findings: [finding(4)], errors: ['mx lookup refused'] });
      else gates.get(target)!.resolve({ findings: [finding(target.charCodeAt(0))] });
    }
    const finished = await running;

    expect(most).toBe(2);
    expect(runner.calls.map((call) => call.target)).toEqual(['a.example', 'b.example', 'c.example', 'd.example']);
    expect(path.findings.saves.flatMap((save) => save.findings.map((stored) => stored.target))).toEqual([
      'a.example',
      'b.example',
      'c.example',
      'd.example',
    ]);
    expect(finished).toMatchObject({
      status: 'partial',
      finding_count: 4,
      errors: [{ runner: 'scripted', message: 'd.example: mx lookup refused' }],
    });
  });

  it("keeps an engine's check errors structured on the stored job: which target and which check", async () => {
    const runner = new ScriptedRunner();
    runner.behaviour = async () => ({ findings: [finding(1)], errors: [{ check: 'dnsbl', message: 'zen timed out' }, 'runner words'] });
    const path = scanPath({ runner });

    const finished = await path.engine.execute(await queued(path, manualJob(1, { target: 'a.example' })), ENOUGH_TIME);

    expect(finished.errors).toEqual([
      { runner: 'scripted', target: 'a.example', check: 'dnsbl', message: 'a.example: dnsbl: zen timed out' },
      { runner: 'scripted', message: 'a.example: runner words' },
    ]);
  });

  it("takes the backfill's provenance keys off the scope once, before the runner sees it", async () => {
    const runner = new ScriptedRunner();
    const path = scanPath({ runner });

    await path.engine.execute(
      await queued(path, manualJob(1, { scope: { reputation: false, source_legacy_model: 'EmailSecurityTask', source_legacy_id: 4 } })),
      ENOUGH_TIME,
    );

    expect(runner.calls.map((call) => call.scope)).toEqual([{ reputation: false }]);
  });

  it('keeps first_seen_at from the scan that first saw a finding and moves last_seen_at', async () => {
    const path = scanPath();
    await path.engine.execute(await queued(path, manualJob(1)), ENOUGH_TIME);
    path.clock.advance(86_400_000);

    await path.engine.execute(await queued(path, manualJob(2)), ENOUGH_TIME);

    const second = path.findings.saves[1].findings;
    expect(second.map((stored) => [stored.first_seen_at, stored.last_seen_at])).toEqual([
      ['2026-03-02T10:00:00.000Z', '2026-03-03T10:00:00.000Z'],
      ['2026-03-02T10:00:00.000Z', '2026-03-03T10:00:00.000Z'],
    ]);
  });

  it('fails a job whose runner throws, with the target and the reason', async () => {
    const runner = new ScriptedRunner();
    runner.behaviour = async () => {
      throw new Error('spawn mailscan ENOENT');
    };
    const path = scanPath({ runner });

    const finished = await path.engine.execute(await queued(path, manualJob(1)), ENOUGH_TIME);

    expect(finished).toMatchObject({
      status: 'failed',
      finding_count: 0,
      errors: [{ runner: 'scripted', message: 'example.com: spawn mailscan ENOENT' }],
    });
    expect(await path.scans.get('acme', finished.id)).toEqual(finished);
    expect(path.metrics.filter((metric) => metric.name === 'ScansFinished')).toEqual([
      { name: 'ScansFinished', value: 1, dimensions: { status: 'failed' } },
    ]);
  });

  it('counts a malformed finding as an error and keeps the well-formed ones: partial', async () => {
    const runner = new ScriptedRunner();
    runner.behaviour = async () => ({ findings: [finding(1), { ...finding(2), severity: 'dire' as never }] });
    const path = scanPath({ runner });

    const finished = await path.engine.execute(await queued(path, manualJob(1)), ENOUGH_TIME);

    expect(finished.status).toBe('partial');
    expect(finished.finding_count).toBe(1);
    expect(finished.errors).toEqual([{ runner: 'scripted', message: expect.stringMatching(/^finding 1 for example.com is malformed: /) }]);
  });

  it('aborts a runner that overstays the time left and fails the job with the deadline', async () => {
    vi.useFakeTimers();
    let signal: AbortSignal | undefined;
    const runner = new ScriptedRunner();
    runner.behaviour = ({ signal: given }) => {
      signal = given;
      return new Promise<RunnerResult>(() => {});
    };
    const path = scanPath({ runner });
    const job = await queued(path, manualJob(1));

    const running = path.engine.execute(job, () => MARGIN_MS + 5_000);
    await vi.advanceTimersByTimeAsync(5_000);
    const finished = await running;

    expect(signal?.aborted).toBe(true);
    expect(finished).toMatchObject({ status: 'failed', errors: [{ runner: 'scripted', message: 'example.com: timed out after 5000 ms' }] });
  });

  it('refuses the targets queued behind slow ones once the invocation has no time left for them', async () => {
    let left = 60_000;
    const runner = new ScriptedRunner();
    runner.behaviour = async () => {
      left = MARGIN_MS; // the first target used up the invocation
      return { findings: [finding(1)] };
    };
    const path = scanPath({ runner, targetConcurrency: 1 });

    const finished = await path.engine.execute(await queued(path, manualJob(1, { targets: ['late.example'] })), () => left);

    expect(runner.calls.map((call) => call.target)).toEqual(['example.com']);
    expect(finished).toMatchObject({
      status: 'partial',
      errors: [{ runner: 'scripted', message: 'no time left in the invocation for target late.example' }],
    });
  });

  it('fails a job whose scan type has no runner', async () => {
    const path = scanPath();

    const finished = await path.engine.execute(await queued(path, manualJob(1, { scan_type: 'ssl' })), ENOUGH_TIME);

    expect(finished).toMatchObject({ status: 'failed', errors: [{ runner: 'ssl', message: 'no runner for scan_type ssl' }] });
  });

  it('stores at most MAX_STORED_CHECKS checks, each detail cut to 200 characters', async () => {
    const checks: RunnerCheck[] = Array.from({ length: MAX_STORED_CHECKS + 10 }, (_, i) => ({
      id: `rule.${i}`,
      title: `rule ${i}`,
      status: 'pass',
      detail: 'x'.repeat(300),
    }));
    const runner = new ScriptedRunner();
    runner.behaviour = async () => ({ findings: [], checks });
    const path = scanPath({ runner });

    const finished = await path.engine.execute(await queued(path, manualJob(1)), ENOUGH_TIME);

    expect(finished.checks).toHaveLength(MAX_STORED_CHECKS);
    expect(finished.checks[0]).toEqual({ target: 'example.com', id: 'rule.0', title: 'rule 0', status: 'pass', detail: 'x'.repeat(200) });
  });

  it('returns a finished job untouched and runs nothing', async () => {
    const runner = new ScriptedRunner();
    const path = scanPath({ runner });
    const done = await queued(path, manualJob(1, { status: 'succeeded' }));

    expect(await path.engine.execute(done, ENOUGH_TIME)).toEqual(done);
    expect(runner.calls).toEqual([]);
  });

  it('leaves a job another path closed meanwhile as that path left it', async () => {
    const { runner, started, result: gate } = heldRunner();
    const path = scanPath({ runner });
    const job = await queued(path, manualJob(1));

    const running = path.engine.execute(job, ENOUGH_TIME);
    await started;
    await path.scans.transition('acme', job.id, ['running'], {
      status: 'failed',
      errors: [{ runner: 'dispatch', message: 'dead-lettered' }],
    });
    gate.resolve({ findings: [finding(1)] });

    expect(await running).toMatchObject({ status: 'failed', errors: [{ runner: 'dispatch', message: 'dead-lettered' }] });
    expect(path.count('ScansFinished')).toBe(0);
  });
});

describe('the scan engine tracks issues', () => {
  const whole = { kind: 'target' } as const;
  const checks = (status: 'pass' | 'error') =>
    [1, 2].map((n) => ({ id: `test.rule_${n % 3}`, title: `rule ${n}`, status, detail: '', coverage: whole }));

  it('opens an issue per finding, and resolves one only when a complete later run passed its check', async () => {
    const runner = new ScriptedRunner();
    const path = scanPath({ runner });
    runner.behaviour = async () => ({ findings: [finding(1), finding(2)], checks: checks('pass') });
    const first = await path.engine.execute(await queued(path, manualJob(1)), ENOUGH_TIME);
    path.clock.advance(3_600_000);
    runner.behaviour = async () => ({
      findings: [finding(2)],
      checks: [{ id: 'test.rule_1', title: 'r', status: 'pass', detail: '', coverage: whole }],
    });

    const second = await path.engine.execute(await queued(path, manualJob(2)), ENOUGH_TIME);

    expect(first.changes).toEqual({ new: 2, resolved: 0, reopened: 0, unchanged: 0 });
    expect(second.changes).toEqual({ new: 0, resolved: 1, reopened: 0, unchanged: 1 });
    const stored = [...path.issues.rows.values()].sort((a, b) => (a.rule_id < b.rule_id ? -1 : 1));
    expect(stored.map((issue) => [issue.rule_id, issue.status, issue.occurrence_count])).toEqual([
      ['test.rule_1', 'resolved', 1],
      ['test.rule_2', 'open', 2],
    ]);
  });

  it('resolves nothing when the check errored or the run was partial', async () => {
    const runner = new ScriptedRunner();
    const path = scanPath({ runner });
    runner.behaviour = async () => ({ findings: [finding(1)], checks: checks('pass') });
    await path.engine.execute(await queued(path, manualJob(1)), ENOUGH_TIME);
    runner.behaviour = async () => ({ findings: [], checks: checks('error') });
    const errored = await path.engine.execute(await queued(path, manualJob(2)), ENOUGH_TIME);
    runner.behaviour = async () => ({ findings: [finding(9)], checks: checks('pass'), errors: ['reputation timed out'] });

    const partial = await path.engine.execute(await queued(path, manualJob(3)), ENOUGH_TIME);

    expect(errored.changes?.resolved).toBe(0);
    expect(partial.status).toBe('partial');
    expect(partial.changes?.resolved).toBe(0);
    expect([...path.issues.rows.values()].find((issue) => issue.rule_id === 'test.rule_1')?.status).toBe('open');
  });
});
