import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FaultyTriggers } from '../helpers/faulty-triggers.ts';
import { freshTenant, scheduleBody, snapshot, startTestService, type TestService } from '../helpers/local-service.ts';

describe('when the trigger scheduler fails', () => {
  let service: TestService;
  let faults: FaultyTriggers;
  let tenant: string;
  let token: string;

  beforeAll(async () => {
    service = await startTestService({ wrapTriggers: (inner) => (faults = new FaultyTriggers(inner)) });
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    faults.failures = [];
    tenant = freshTenant('acme');
    token = await service.token(tenant, 'admin');
  });

  const create = (overrides: Record<string, unknown> = {}) =>
    service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody(overrides) });

  it('answers 503 trigger_unavailable to a create and stores no row and no trigger', async () => {
    const before = await snapshot(service.runtime, tenant);
    faults.failures = ['refuse'];

    const reply = await create();

    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('trigger_unavailable');
    expect(await snapshot(service.runtime, tenant)).toBe(before);
  });

  it('removes the half-made pair of triggers of a split create', async () => {
    const before = await snapshot(service.runtime, tenant);
    faults.failures = ['half'];

    const reply = await create({ cadence: 'custom', cron_expression: '0 0 1,15 * 1' });

    expect(reply.status).toBe(503);
    expect(await snapshot(service.runtime, tenant)).toBe(before);
  });

  it.each([
    ['a patch', 'PATCH', '', { cadence: 'custom', cron_expression: '0 0 1,15 * 1' }],
    ['a toggle', 'POST', 'toggle/', undefined],
    ['a delete', 'DELETE', '', undefined],
  ] as const)('leaves the row and its trigger exactly as before when %s fails half way', async (_name, method, suffix, body) => {
    const { body: created } = await create({ cadence: 'custom', cron_expression: '0 0 1,15 * 2' });
    const before = await snapshot(service.runtime, tenant);
    faults.failures = ['half'];

    const reply = await service.call(`/api/scans/schedules/${created.id}/${suffix}`, { method, token, body });

    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('trigger_unavailable');
    expect(await snapshot(service.runtime, tenant)).toBe(before);
  });

  it('answers 500 with no stack trace when a dependency fails unexpectedly, and stores nothing', async () => {
    const before = await snapshot(service.runtime, tenant);
    faults.failures = ['crash'];

    const reply = await create();

    expect(reply.status).toBe(500);
    expect(reply.body.error).toEqual({ code: 'internal_error', message: 'internal error', details: [], request_id: expect.any(String) });
    expect(JSON.stringify(reply.body)).not.toContain('socket hang up');
    expect(await snapshot(service.runtime, tenant)).toBe(before);
  });

  it('answers 409 conflict to the slower of two concurrent patches and keeps the trigger of the winner', async () => {
    const { body: created } = await create();
    let release!: () => void;
    faults.calls = 0;
    faults.gate = new Promise<void>((resolve) => (release = resolve));
    const slow = service.call(`/api/scans/schedules/${created.id}/`, { method: 'PATCH', token, body: { cadence: 'weekly' } });
    while (faults.calls === 0) await new Promise((resolve) => setImmediate(resolve));
    const callsBefore = faults.calls;
    faults.gate = null;
    const fast = await service.call(`/api/scans/schedules/${created.id}/`, { method: 'PATCH', token, body: { cadence: 'monthly' } });
    expect(faults.calls).toBeGreaterThan(callsBefore);
    release();

    const slowReply = await slow;

    expect(fast.status).toBe(200);
    expect(slowReply.status).toBe(409);
    expect(slowReply.body.error.code).toBe('conflict');
    const stored = await service.call(`/api/scans/schedules/${created.id}/`, { token });
    expect(stored.body.cadence).toBe('monthly');
    const triggers = (await service.runtime.scheduler.list()).filter((t) => t.scheduleId === created.id);
    expect(triggers.map((t) => t.expression)).toEqual(['cron(0 4 1 * ? *)']);
  });
});

describe('quota', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ quota: 3 });
  });
  afterAll(() => service.stop());

  it('answers 409 quota_exceeded past the quota, stores nothing, and frees a slot on delete', async () => {
    const tenant = freshTenant('small');
    const token = await service.token(tenant, 'admin');
    const ids: string[] = [];
    for (let i = 0; i < 3; i += 1)
      ids.push((await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() })).body.id);
    const before = await snapshot(service.runtime, tenant);

    const over = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });
    const unchanged = await snapshot(service.runtime, tenant);
    await service.call(`/api/scans/schedules/${ids[0]}/`, { method: 'DELETE', token });
    const again = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });

    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('quota_exceeded');
    expect(unchanged).toBe(before);
    expect(again.status).toBe(201);
  });

  it('keeps tenants apart: one tenant at its quota does not limit another', async () => {
    const full = await service.token(freshTenant('full'), 'admin');
    for (let i = 0; i < 3; i += 1) await service.call('/api/scans/schedules/', { method: 'POST', token: full, body: scheduleBody() });
    const token = await service.token(freshTenant('roomy'), 'admin');

    const over = await service.call('/api/scans/schedules/', { method: 'POST', token: full, body: scheduleBody() });
    const reply = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });

    expect(over.status).toBe(409);
    expect(reply.status).toBe(201);
  });

  it('never exceeds the quota under concurrent creates', async () => {
    const tenant = freshTenant('racer');
    const token = await service.token(tenant, 'admin');

    const replies = await Promise.all(
      Array.from({ length: 8 }, () => service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() })),
    );

    expect(replies.filter((r) => r.status === 201)).toHaveLength(3);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(5);
    expect(await service.runtime.repo.count(tenant)).toBe(3);
  });
});
