import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { engineLessRunners, freshTenant, scheduleBody, startTestService, type TestService } from '../helpers/local-service.ts';
import { runnerScanTypes } from '../../shared/domain/runner-types.ts';
import { SCAN_TYPES } from '../../shared/domain/scan-types.ts';
import { manifestOfScanType } from '../../layers/manifests.ts';

describe('schedule API', () => {
  let service: TestService;
  let tenant: string;
  let token: string;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    tenant = freshTenant('acme');
    token = await service.token(tenant, 'admin');
  });

  const create = (overrides: Record<string, unknown> = {}) =>
    service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody(overrides) });

  it('creates a daily schedule with its trigger, Location and next run', async () => {
    const reply = await create({ name: 'Daily mail', target: 'Bücher.DE.' });

    expect(reply.status).toBe(201);
    expect(reply.headers.get('location')).toBe(`/api/scans/schedules/${reply.body.id}/`);
    expect(reply.body).toMatchObject({
      name: 'Daily mail',
      description: '',
      scan_type: 'email_security',
      target: 'xn--bcher-kva.de',
      targets: [],
      scope: {},
      cadence: 'daily',
      cron_expression: null,
      timezone: 'UTC',
      enabled: true,
      last_run_at: null,
      last_run_status: 'never_run',
      last_scan_id: null,
      trigger: { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' },
      next_run_at: '2026-03-03T02:00:00.000Z',
      created_at: '2026-03-02T10:00:00.000Z',
    });
    expect(reply.body.id).toMatch(/^sch_[0-9A-Z]{26}$/);
    const triggers = await service.runtime.scheduler.list();
    expect(triggers.filter((t) => t.scheduleId === reply.body.id)).toEqual([
      { name: reply.body.id, tenant, scheduleId: reply.body.id, expression: 'cron(0 2 * * ? *)', timezone: 'UTC', queue: 'standard' },
    ]);
  });

  it('takes any domain name for email_security, apex or subdomain, in any TLD, in target and targets alike', async () => {
    const reply = await create({ target: 'News.Example.COM.', targets: ['mail.corp.internal', 'post.bücher.de', 'example.test'] });

    expect(reply.status).toBe(201);
    expect(reply.body).toMatchObject({
      target: 'news.example.com',
      targets: ['mail.corp.internal', 'post.xn--bcher-kva.de', 'example.test'],
    });
  });

  it('creates a custom schedule in a timezone and a split-day schedule with two triggers', async () => {
    const sixHourly = await create({ cadence: 'custom', cron_expression: '0 */6 * * *', timezone: 'Europe/Paris' });
    const split = await create({ cadence: 'custom', cron_expression: '0 0 1,15 * 1' });

    expect(sixHourly.body.trigger).toEqual({ expressions: ['cron(0 0,6,12,18 * * ? *)'], timezone: 'Europe/Paris' });
    expect(sixHourly.body.next_run_at).toBe('2026-03-02T11:00:00.000Z');
    expect(split.body.trigger.expressions).toEqual(['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)']);
    const names = (await service.runtime.scheduler.list())
      .filter((t) => t.scheduleId === split.body.id)
      .map((t) => t.name)
      .sort();
    expect(names).toEqual([`${split.body.id}-dom`, `${split.body.id}-dow`]);
  });

  it('creates a disabled schedule without a trigger', async () => {
    const reply = await create({ enabled: false });

    expect(reply.body).toMatchObject({ enabled: false, trigger: null, next_run_at: null });
    expect((await service.runtime.scheduler.list()).some((t) => t.scheduleId === reply.body.id)).toBe(false);
  });

  it('gets a schedule with and without the trailing slash', async () => {
    const { body: created } = await create();

    const withSlash = await service.call(`/api/scans/schedules/${created.id}/`, { token });
    const withoutSlash = await service.call(`/api/scans/schedules/${created.id}`, { token });

    expect(withSlash.status).toBe(200);
    expect(withSlash.body).toEqual(created);
    expect(withoutSlash.body).toEqual(created);
  });

  it('patches a subset of fields and re-synchronises the trigger', async () => {
    const { body: created } = await create();

    const reply = await service.call(`/api/scans/schedules/${created.id}/`, {
      method: 'PATCH',
      token,
      body: { cadence: 'custom', cron_expression: '30 9 * * mon-fri', timezone: 'America/New_York', description: 'weekday mornings' },
    });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ name: created.name, description: 'weekday mornings', cron_expression: '30 9 * * mon-fri' });
    expect(reply.body.trigger).toEqual({ expressions: ['cron(30 9 ? * MON-FRI *)'], timezone: 'America/New_York' });
    expect(reply.body.next_run_at).toBe('2026-03-02T14:30:00.000Z');
    const triggers = (await service.runtime.scheduler.list()).filter((t) => t.scheduleId === created.id);
    expect(triggers).toEqual([expect.objectContaining({ expression: 'cron(30 9 ? * MON-FRI *)', timezone: 'America/New_York' })]);
  });

  it('drops the crontab when a patch leaves the custom cadence', async () => {
    const { body: created } = await create({ cadence: 'custom', cron_expression: '0 0 1,15 * 1', timezone: 'Asia/Tokyo' });

    const reply = await service.call(`/api/scans/schedules/${created.id}/`, { method: 'PATCH', token, body: { cadence: 'weekly' } });

    expect(reply.body).toMatchObject({
      cadence: 'weekly',
      cron_expression: null,
      timezone: 'UTC',
      trigger: { expressions: ['cron(0 3 ? * MON *)'], timezone: 'UTC' },
    });
    const names = (await service.runtime.scheduler.list()).filter((t) => t.scheduleId === created.id).map((t) => t.name);
    expect(names).toEqual([created.id]);
  });

  it('toggles off and on, removing and provisioning the trigger', async () => {
    const { body: created } = await create();

    const off = await service.call(`/api/scans/schedules/${created.id}/toggle/`, { method: 'POST', token });
    const triggersWhenOff = (await service.runtime.scheduler.list()).filter((t) => t.scheduleId === created.id);
    const on = await service.call(`/api/scans/schedules/${created.id}/toggle`, { method: 'POST', token });
    const triggersWhenOn = (await service.runtime.scheduler.list()).filter((t) => t.scheduleId === created.id);

    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ enabled: false, trigger: null, next_run_at: null });
    expect(triggersWhenOff).toEqual([]);
    expect(on.body).toMatchObject({ enabled: true, trigger: { expressions: ['cron(0 2 * * ? *)'] } });
    expect(triggersWhenOn).toHaveLength(1);
  });

  it('deletes a schedule and its trigger', async () => {
    const { body: created } = await create({ cadence: 'custom', cron_expression: '0 0 1,15 * 1' });

    const reply = await service.call(`/api/scans/schedules/${created.id}/`, { method: 'DELETE', token });
    const after = await service.call(`/api/scans/schedules/${created.id}/`, { token });

    expect(reply.status).toBe(204);
    expect(reply.body).toBeUndefined();
    expect(after.status).toBe(404);
    expect((await service.runtime.scheduler.list()).some((t) => t.scheduleId === created.id)).toBe(false);
  });

  it('answers 404 for an id that does not exist or is malformed', async () => {
    const missing = await service.call('/api/scans/schedules/sch_01KAAAAAAAAAAAAAAAAAAAAAAA/', { token });
    const malformed = await service.call('/api/scans/schedules/not-an-id/', { token });

    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    expect(malformed.status).toBe(404);
  });

  it('answers an unknown route with a 404 error body', async () => {
    const reply = await service.call('/api/nothing-here', { token });

    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('not_found');
  });

  it('serves health without a session', async () => {
    const reply = await service.call('/api/health');

    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ status: 'ok', version: '0.1.0' });
  });

  it('lists the scan types with labels, hints, runner availability and each engine with its scope as JSON Schema', async () => {
    const reply = await service.call('/api/scan-types/', { token });

    expect(reply.status).toBe(200);
    expect(reply.body.items).toHaveLength(12);
    expect(reply.body.items[0]).toEqual({
      value: 'email_security',
      label: 'Email Security',
      target_hint: expect.any(String),
      runner_available: true,
      engine: expect.objectContaining({ name: 'mailscan', status: 'ga', target_kind: 'domain', doc: 'docs/mailscan.md' }),
    });
    // Its scope keys that take uploaded files' ids, for the UI's file pickers; none for the others.
    expect(reply.body.items[0].engine.artifact_fields).toEqual({
      rua: { purpose: 'rua', many: true },
      header: { purpose: 'eml', many: false },
    });
    // The scope as the API parses it (strict), for the UI's scope form.
    const vapt = reply.body.items.find((item: { value: string }) => item.value === 'vapt');
    expect(vapt.engine.name).toBe('netscan');
    expect(vapt.engine.scope_schema).toMatchObject({ type: 'object', additionalProperties: false });
    expect(Object.keys(vapt.engine.scope_schema.properties)).toContain('ports');
    expect(reply.body.items.find((item: { value: string }) => item.value === 'ai_red_team').engine).toMatchObject({
      name: 'llmscan',
      status: 'beta',
      target_kind: 'http_url',
      resource_class: 'long',
      doc: 'docs/llmscan.md',
    });
    expect(reply.body.items.find((item: { value: string }) => item.value === 'medical').engine).toMatchObject({
      name: 'medscan',
      target_kind: 'host_port_or_url',
      doc: 'docs/medscan.md',
    });
    // A type no engine of this build runs has none.
    for (const item of reply.body.items as { value: string; engine: unknown }[]) {
      if (!manifestOfScanType(item.value)) expect(item.engine).toBeNull();
    }
    const available = reply.body.items.filter((item: { runner_available: boolean }) => item.runner_available);
    expect(available.map((item: { value: string }) => item.value).sort()).toEqual(runnerScanTypes().sort());
    expect(reply.body.items.map((item: { value: string }) => item.value)).toContain('ai_red_team');
    // What the create routes accept, so the UI checks a target as the API will (default: neither).
    expect(reply.body.target_policy).toEqual({ allow_private_networks: false, allow_loopback: false });
  });

  it('serves an OpenAPI 3.1 document generated from the schemas', async () => {
    const reply = await service.call('/api/openapi.json');

    expect(reply.status).toBe(200);
    expect(reply.body.openapi).toBe('3.1.0');
    const create = reply.body.paths['/api/scans/schedules/'].post;
    const schema = create.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['name', 'scan_type', 'target', 'cadence']));
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.scan_type.enum).toContain('email_security');
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '409', '503']));
    expect(reply.body.paths['/api/health'].get.security).toEqual([]);
  });
});

describe('schedule listing', () => {
  let service: TestService;
  let token: string;
  const ids: string[] = [];

  beforeAll(async () => {
    service = await startTestService({ runners: engineLessRunners(SCAN_TYPES) }); // listing takes every scan type
    token = await service.token('lister', 'admin');
    for (let i = 0; i < 7; i += 1) {
      const scanType = i % 2 === 0 ? 'email_security' : 'dast';
      const target = scanType === 'dast' ? `https://app${i}.example.com/` : `site${i}.com`;
      const reply = await service.call('/api/scans/schedules/', {
        method: 'POST',
        token,
        body: scheduleBody({ name: `s${i}`, scan_type: scanType, target, enabled: i < 4 }),
      });
      ids.push(reply.body.id);
      service.clock.advance(1000);
    }
  });
  afterAll(() => service.stop());

  async function collect(query: string): Promise<{ names: string[]; pages: number }> {
    const names: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const suffix: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
      const reply = await service.call(`/api/scans/schedules/?${query}${suffix}`, { token });
      expect(reply.status).toBe(200);
      names.push(...reply.body.items.map((item: { name: string }) => item.name));
      cursor = reply.body.next_cursor;
      pages += 1;
    } while (cursor);
    return { names, pages };
  }

  it('lists newest first across pages', async () => {
    const { names, pages } = await collect('limit=3');

    expect(names).toEqual(['s6', 's5', 's4', 's3', 's2', 's1', 's0']);
    expect(pages).toBe(3);
  });

  it('filters by scan type, by enabled, and by both', async () => {
    expect((await collect('scan_type=dast&limit=2')).names).toEqual(['s5', 's3', 's1']);
    expect((await collect('enabled=false')).names).toEqual(['s6', 's5', 's4']);
    expect((await collect('scan_type=email_security&enabled=true&limit=1')).names).toEqual(['s2', 's0']);
  });

  it('defaults to pages of 50', async () => {
    const reply = await service.call('/api/scans/schedules/', { token });

    expect(reply.body.items).toHaveLength(7);
    expect(reply.body.next_cursor).toBeNull();
  });

  it("refuses another tenant's cursor and a cursor of another listing", async () => {
    const page = await service.call('/api/scans/schedules/?limit=2', { token });
    const other = await service.token('other', 'admin');

    const replayed = await service.call(`/api/scans/schedules/?limit=2&cursor=${page.body.next_cursor}`, { token: other });
    const switched = await service.call(`/api/scans/schedules/?limit=2&scan_type=dast&cursor=${page.body.next_cursor}`, { token });

    expect(replayed.status).toBe(400);
    expect(replayed.body.error.details).toEqual([{ field: 'cursor', message: expect.any(String) }]);
    expect(switched.status).toBe(400);
  });
});
