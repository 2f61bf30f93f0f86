import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FireMessage } from '../../shared/domain/messages.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { startLocalRuntime } from '../../local/runtime.ts';
import { signSessionToken } from '../../shared/auth/session-token.ts';
import { SESSION_KEY, engineLessRunners, freshTenant, scheduleBody, startTestService, type TestService } from '../helpers/local-service.ts';
import { silentLogger } from '../fakes/silent-logger.ts';

const MINUTE = 60_000;

describe('local runtime restarts', () => {
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'scan-service-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('keeps schedules across a restart and re-arms the triggers of enabled rows', async () => {
    const clock = new ManualClock('2026-03-02T10:00:00Z');
    const first = await startLocalRuntime({ dataDir, clock, logger: silentLogger, runners: engineLessRunners() });
    const enabled = await first.schedules.create('acme', {
      name: 'kept',
      scan_type: 'email_security',
      target: 'example.com',
      cadence: 'custom',
      cron_expression: '0 0 1,15 * 1',
    });
    await first.schedules.create('acme', {
      name: 'paused',
      scan_type: 'email_security',
      target: 'example.org',
      cadence: 'daily',
      enabled: false,
    });
    const key = first.sessionKey;
    await first.stop();

    const second = await startLocalRuntime({ dataDir, clock, logger: silentLogger, runners: engineLessRunners() });
    try {
      const stored = await second.schedules.get('acme', enabled.id);
      const triggers = await second.scheduler.list();

      expect(stored).toEqual(enabled);
      expect(second.sessionKey).toBe(key);
      expect(second.rearmed).toBe(1);
      expect(triggers.map((t) => t.name).sort()).toEqual([`${enabled.id}-dom`, `${enabled.id}-dow`]);
    } finally {
      await second.stop();
    }
  });
});

describe('local restarts with unfinished scans', () => {
  it('requeues a scan the last run left queued and finishes it once after the restart', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'scan-service-'));
    try {
      const clock = new ManualClock('2026-03-02T10:00:00Z');
      const runner = {
        name: 'once',
        calls: 0,
        async run() {
          this.calls += 1;
          return { findings: [] };
        },
      };
      const first = await startLocalRuntime({ dataDir, clock, logger: silentLogger, runners: engineLessRunners() });
      const token = await signSessionToken({ sub: 'u', tenant: 'acme', role: 'operator' }, first.sessionKey);
      const response = await fetch(`${first.url}/api/scans/`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ scan_type: 'email_security', target: 'example.com' }),
      });
      const queued = (await response.json()) as { id: string };
      await first.stop();

      const second = await startLocalRuntime({ dataDir, clock, logger: silentLogger, runners: new Map([['email_security', runner]]) });
      try {
        await second.drain();
        const job = await second.scans.get('acme', queued.id);

        expect(second.requeued).toBe(1);
        expect(job?.status).toBe('succeeded');
        expect(runner.calls).toBe(1);
      } finally {
        await second.stop();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('local fires', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  function drain(): FireMessage[] {
    const fires: FireMessage[] = [];
    for (let batch = service.runtime.scanQueue.receive(10); batch.length > 0; batch = service.runtime.scanQueue.receive(10)) {
      for (const message of batch) {
        service.runtime.scanQueue.delete(message.receiptHandle);
        fires.push(FireMessage.parse(JSON.parse(message.body)));
      }
    }
    return fires;
  }

  it('puts a fire message on the scan queue at each tick of a custom schedule, in its timezone', async () => {
    const tenant = freshTenant('acme');
    const token = await service.token(tenant, 'operator');
    const { body: created } = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ cadence: 'custom', cron_expression: '0 */6 * * *', timezone: 'Asia/Kolkata' }),
    });
    drain();

    service.clock.set('2026-03-03T00:00:00Z');
    await service.runtime.scheduler.runDue();
    const fires = drain().filter((fire) => fire.schedule_id === created.id);

    // 00:00, 06:00, 12:00, 18:00 IST between 10:00Z on the 2nd and 00:00Z on the 3rd: 12:30Z and 18:30Z.
    expect(fires.map((fire) => fire.scheduled_time)).toEqual(['2026-03-02T12:30:00Z', '2026-03-02T18:30:00Z']);
    expect(fires[0]).toEqual({
      kind: 'fire',
      tenant,
      schedule_id: created.id,
      scheduled_time: '2026-03-02T12:30:00Z',
      execution_id: expect.any(String),
    });
  });

  it('stops firing once toggled off and fires the split pair twice on a day matching both', async () => {
    const token = await service.token(freshTenant('acme'), 'operator');
    service.clock.set('2026-05-31T12:00:00Z');
    const { body: split } = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ cadence: 'custom', cron_expression: '0 0 1,15 * 1' }),
    });
    const { body: paused } = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ cadence: 'custom', cron_expression: '*/5 * * * *' }),
    });
    await service.call(`/api/scans/schedules/${paused.id}/toggle/`, { method: 'POST', token });
    drain();

    service.clock.advance(12 * 60 * MINUTE + MINUTE); // past 2026-06-01T00:00Z, a Monday and the 1st
    await service.runtime.scheduler.runDue();
    const fires = drain();

    expect(fires.filter((fire) => fire.schedule_id === paused.id)).toEqual([]);
    const splitFires = fires.filter((fire) => fire.schedule_id === split.id);
    expect(splitFires.map((fire) => fire.scheduled_time)).toEqual(['2026-06-01T00:00:00Z', '2026-06-01T00:00:00Z']);
    expect(new Set(splitFires.map((fire) => fire.execution_id)).size).toBe(2);
  });
});

describe('reconcile', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());

  it('reports drift in both directions on a dry run and changes nothing, then repairs it', async () => {
    const token = await service.token('drift', 'admin');
    const { body: lost } = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });
    const { body: stale } = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });
    await service.runtime.scheduler.sync('drift', lost.id, null);
    await service.runtime.scheduler.sync('drift', stale.id, { expressions: ['cron(0 9 * * ? *)'], timezone: 'UTC' });
    await service.runtime.scheduler.sync('drift', 'sch_01KORPHANORPHANORPHANORPH', { expressions: ['cron(0 1 * * ? *)'], timezone: 'UTC' });
    const before = JSON.stringify(await service.runtime.scheduler.list());

    const dry = await service.runtime.reconciler.reconcile({ dryRun: true, tenant: 'drift' });
    const afterDryRun = JSON.stringify(await service.runtime.scheduler.list());
    const repaired = await service.runtime.reconciler.reconcile({ dryRun: false, tenant: 'drift' });
    const clean = await service.runtime.reconciler.reconcile({ dryRun: true, tenant: 'drift' });

    expect(dry.actions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'provision', schedule_id: lost.id }),
        expect.objectContaining({ kind: 'update', schedule_id: stale.id }),
        expect.objectContaining({ kind: 'remove', schedule_id: 'sch_01KORPHANORPHANORPHANORPH' }),
      ]),
    );
    expect(dry.actions).toHaveLength(3);
    expect(afterDryRun).toBe(before);
    expect(repaired.failures).toEqual([]);
    expect(clean.actions).toEqual([]);
    const triggers = (await service.runtime.scheduler.list()).filter((t) => t.tenant === 'drift');
    expect(triggers.map((t) => [t.scheduleId, t.expression]).sort()).toEqual(
      [
        [lost.id, 'cron(0 2 * * ? *)'],
        [stale.id, 'cron(0 2 * * ? *)'],
      ].sort(),
    );
  });

  it('is reachable over loopback with the local admin key only', async () => {
    const refused = await fetch(`${service.runtime.url}/_local/reconcile`, { method: 'POST', body: '{}' });
    const accepted = await fetch(`${service.runtime.url}/_local/reconcile`, {
      method: 'POST',
      headers: { 'x-local-admin-key': SESSION_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ dry_run: true }),
    });

    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({ code: 'unauthenticated', details: [] });
    expect(accepted.status).toBe(200);
    expect(await accepted.json()).toMatchObject({ dry_run: true, actions: [] });
  });
});

describe('local resource classes', () => {
  it("gives each scan its resource class's time, as that class's dispatch function does in AWS", async () => {
    const given = new Map<string, number>();
    const recording = {
      name: 'recording',
      async run({ scanType, timeoutMs }: { scanType: string; timeoutMs: number }) {
        given.set(scanType, timeoutMs);
        return { findings: [] };
      },
    };
    const service = await startTestService({
      allowLoopbackTargets: true,
      runners: new Map([
        ['ssl', recording],
        ['ai_red_team', recording],
      ]),
    });
    try {
      const token = await service.token(freshTenant('classes'), 'operator');
      for (const body of [
        { scan_type: 'ssl', target: 'example.com' },
        { scan_type: 'ai_red_team', target: 'http://127.0.0.1:9/v1/chat/completions' },
      ]) {
        const created = await service.call('/api/scans/', { method: 'POST', token, body });
        expect(created.status, JSON.stringify(created.body)).toBe(202);
      }
      await service.runtime.drain();

      // standard: a 5-minute function less its 10 s margin; llmscan's long class: 15 minutes less
      // the margin. Before, every local scan had the standard 5 minutes.
      expect(given.get('ssl')).toBeGreaterThan(4 * MINUTE);
      expect(given.get('ssl')).toBeLessThanOrEqual(290_000);
      expect(given.get('ai_red_team')).toBeGreaterThan(14 * MINUTE);
      expect(given.get('ai_red_team')).toBeLessThanOrEqual(890_000);
    } finally {
      await service.stop();
    }
  });
});
