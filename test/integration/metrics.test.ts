import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Logger } from '../../shared/ports/logger.ts';
import { freshTenant, scheduleBody, startTestService, type TestService } from '../helpers/local-service.ts';
import { ScriptedRunner, finding } from '../helpers/test-runners.ts';

interface MetricLine {
  namespace: string;
  metric: string;
  value: number;
  unit: string;
  dimensions: Record<string, string>;
}

/**
 * Keeps the `metric` lines of the structured log, where the local runtime sends its metrics. The
 * lines are the whole service's (metrics carry no tenant): each test reads those after its mark.
 */
function metricLog(): Logger & { metrics: MetricLine[] } {
  const metrics: MetricLine[] = [];
  const ignore = () => {};
  return {
    metrics,
    debug: ignore,
    warn: ignore,
    error: ignore,
    info(message: string, ...extra: Record<string, unknown>[]) {
      if (message === 'metric') metrics.push(Object.assign({}, ...extra) as MetricLine);
    },
  };
}

describe('metrics of the local runtime (DESIGN §10), in the structured log', () => {
  let service: TestService;
  let tenant: string;
  let token: string;
  const runner = new ScriptedRunner();
  const log = metricLog();

  beforeAll(async () => {
    service = await startTestService({ runners: new Map([['email_security', runner]]), logger: log });
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    tenant = freshTenant('metrics');
    token = await service.token(tenant, 'admin');
  });

  const base = { namespace: 'ScanService', dimensions: { service: 'scan-service', environment: 'local' } };
  const line = (metric: string, value: number, unit: string, dimensions: Record<string, string> = {}) => ({
    namespace: base.namespace,
    metric,
    value,
    unit,
    dimensions: { ...base.dimensions, ...dimensions },
  });

  it('records a scan started, finished by status, its duration and its findings by severity', async () => {
    const seen = log.metrics.length;
    runner.behaviour = async () => {
      service.clock.advance(1_500);
      return { findings: [finding(0), finding(1), finding(3)] };
    };
    await service.call('/api/scans/', { method: 'POST', token, body: { scan_type: 'email_security', target: 'metricsmail.com' } });

    await service.runtime.drain();

    expect(log.metrics.slice(seen)).toEqual([
      line('ScansStarted', 1, 'Count', { scan_type: 'email_security' }),
      line('ScansFinished', 1, 'Count', { status: 'succeeded' }),
      line('ScanDuration', 1_500, 'Milliseconds', { scan_type: 'email_security' }),
      line('Findings', 2, 'Count', { severity: 'high' }),
      line('Findings', 1, 'Count', { severity: 'medium' }),
    ]);
  });

  it('records a failed scan as finished with status failed', async () => {
    const seen = log.metrics.length;
    runner.behaviour = async () => {
      throw new Error('resolver unreachable');
    };
    await service.call('/api/scans/', { method: 'POST', token, body: { scan_type: 'email_security', target: 'brokenmail.com' } });

    await service.runtime.drain();

    expect(log.metrics.slice(seen).filter((metric) => metric.metric === 'ScansFinished')).toEqual([
      line('ScansFinished', 1, 'Count', { status: 'failed' }),
    ]);
  });

  it('counts a scan started by a cron fire, which dispatch inserts already running', async () => {
    runner.behaviour = async () => ({ findings: [] });
    const { body: schedule } = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });
    const seen = log.metrics.length;
    service.runtime.scanQueue.sendRaw(
      JSON.stringify({ kind: 'fire', tenant, schedule_id: schedule.id, scheduled_time: '2026-03-03T02:00:00Z', execution_id: 'e' }),
    );

    await service.runtime.drain();

    expect(log.metrics.slice(seen).filter((metric) => metric.metric.startsWith('Scans'))).toEqual([
      line('ScansStarted', 1, 'Count', { scan_type: 'email_security' }),
      line('ScansFinished', 1, 'Count', { status: 'succeeded' }),
    ]);
  });

  it('records a fire dropped for a disabled schedule', async () => {
    const seen = log.metrics.length;
    const { body: schedule } = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: scheduleBody({ enabled: false }),
    });
    service.runtime.scanQueue.sendRaw(
      JSON.stringify({ kind: 'fire', tenant, schedule_id: schedule.id, scheduled_time: '2026-05-01T02:00:00Z', execution_id: 'x' }),
    );

    await service.runtime.drain();

    expect(log.metrics.slice(seen)).toEqual([line('FiresDropped', 1, 'Count')]);
  });

  it('records a queue record dispatch could not read as a dispatch failure', async () => {
    const seen = log.metrics.length;
    service.runtime.scanQueue.sendRaw('{"kind":"nonsense"}');

    await service.runtime.drain();

    expect(log.metrics.slice(seen)).toContainEqual(line('DispatchFailures', 1, 'Count'));
  });
});
