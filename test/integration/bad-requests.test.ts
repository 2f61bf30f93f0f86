import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshTenant, scheduleBody, snapshot, startTestService, type TestService } from '../helpers/local-service.ts';

interface BadRequest {
  name: string;
  method?: 'POST' | 'PATCH' | 'GET';
  /** `{id}` is replaced by an existing schedule's id. */
  path?: string;
  body?: unknown;
  raw?: string;
  contentType?: string;
  status: number;
  code: string;
  /** A field the error details must name. */
  field?: string;
}

const custom = (cron: string) => scheduleBody({ cadence: 'custom', cron_expression: cron });
const manyTargets = Array.from({ length: 101 }, (_, i) => `d${i}.com`);

const cases: BadRequest[] = [
  { name: 'a body that is not JSON', raw: '{"name": ', status: 400, code: 'invalid_json' },
  {
    name: 'a text/plain body',
    raw: JSON.stringify(scheduleBody()),
    contentType: 'text/plain',
    status: 415,
    code: 'unsupported_media_type',
  },
  {
    name: 'a body without a content type',
    raw: JSON.stringify(scheduleBody()),
    contentType: '',
    status: 415,
    code: 'unsupported_media_type',
  },
  { name: 'a body over 64 KiB', body: scheduleBody({ description: 'x'.repeat(70_000) }), status: 413, code: 'payload_too_large' },
  { name: 'a JSON array body', body: [scheduleBody()], status: 400, code: 'validation_error', field: '' },
  { name: 'a JSON string body', body: 'schedule', status: 400, code: 'validation_error', field: '' },
  { name: 'a missing name', body: scheduleBody({ name: undefined }), status: 400, code: 'validation_error', field: 'name' },
  { name: 'an empty name', body: scheduleBody({ name: '   ' }), status: 400, code: 'validation_error', field: 'name' },
  {
    name: 'a name over 200 characters',
    body: scheduleBody({ name: 'n'.repeat(201) }),
    status: 400,
    code: 'validation_error',
    field: 'name',
  },
  {
    name: 'a description over 2000 characters',
    body: scheduleBody({ description: 'd'.repeat(2001) }),
    status: 400,
    code: 'validation_error',
    field: 'description',
  },
  { name: 'a missing scan_type', body: scheduleBody({ scan_type: undefined }), status: 400, code: 'validation_error', field: 'scan_type' },
  {
    name: 'an unknown scan_type',
    body: scheduleBody({ scan_type: 'port_scan' }),
    status: 400,
    code: 'validation_error',
    field: 'scan_type',
  },
  { name: 'a missing target', body: scheduleBody({ target: undefined }), status: 400, code: 'validation_error', field: 'target' },
  { name: 'a non-string target', body: scheduleBody({ target: 42 }), status: 400, code: 'validation_error', field: 'target' },
  {
    name: 'a single-label target for email_security',
    body: scheduleBody({ target: 'localhost' }),
    status: 400,
    code: 'validation_error',
    field: 'target',
  },
  {
    name: 'a URL for email_security',
    body: scheduleBody({ target: 'https://example.com' }),
    status: 400,
    code: 'validation_error',
    field: 'target',
  },
  {
    name: 'a bare word for dast',
    body: scheduleBody({ scan_type: 'dast', target: 'example' }),
    status: 400,
    code: 'validation_error',
    field: 'target',
  },
  {
    name: 'an ftp URL for dast',
    body: scheduleBody({ scan_type: 'dast', target: 'ftp://example.com/' }),
    status: 400,
    code: 'validation_error',
    field: 'target',
  },
  {
    name: 'an out-of-range port for ssl',
    body: scheduleBody({ scan_type: 'ssl', target: 'www.example.com:70000' }),
    status: 400,
    code: 'validation_error',
    field: 'target',
  },
  {
    name: 'a non-repository URL for secret_scan',
    body: scheduleBody({ scan_type: 'secret_scan', target: 'https://github.com/' }),
    status: 400,
    code: 'validation_error',
    field: 'target',
  },
  {
    name: 'a /33 CIDR for vapt',
    body: scheduleBody({ scan_type: 'vapt', target: '10.0.0.0/33' }),
    status: 400,
    code: 'validation_error',
    field: 'target',
  },
  {
    name: 'an alias with spaces for nhi',
    body: scheduleBody({ scan_type: 'nhi', target: 'deploy key' }),
    status: 400,
    code: 'validation_error',
    field: 'target',
  },
  { name: 'targets that is not a list', body: scheduleBody({ targets: 'a.com' }), status: 400, code: 'validation_error', field: 'targets' },
  { name: 'more than 100 targets', body: scheduleBody({ targets: manyTargets }), status: 400, code: 'validation_error', field: 'targets' },
  {
    name: 'an invalid entry in targets',
    body: scheduleBody({ targets: ['a.com', 'not a domain'] }),
    status: 400,
    code: 'validation_error',
    field: 'targets.1',
  },
  {
    name: 'a repeated entry in targets',
    body: scheduleBody({ targets: ['a.com', 'A.com.'] }),
    status: 400,
    code: 'validation_error',
    field: 'targets',
  },
  {
    name: "a repeated entry in a manual scan's targets",
    path: '/api/scans/',
    body: { scan_type: 'email_security', target: 'a.com', targets: ['b.com', 'B.com.'] },
    status: 400,
    code: 'validation_error',
    field: 'targets',
  },
  {
    name: 'a scope that is not an object',
    body: scheduleBody({ scope: ['reputation'] }),
    status: 400,
    code: 'validation_error',
    field: 'scope',
  },
  {
    name: 'an unknown email_security scope key',
    body: scheduleBody({ scope: { reputation: true, deep: true } }),
    status: 400,
    code: 'validation_error',
    field: 'scope.deep',
  },
  {
    name: 'a non-boolean scope.reputation',
    body: scheduleBody({ scope: { reputation: 'yes' } }),
    status: 400,
    code: 'validation_error',
    field: 'scope.reputation',
  },
  {
    name: 'an invalid DKIM selector',
    body: scheduleBody({ scope: { dkim_selectors: ['bad selector'] } }),
    status: 400,
    code: 'validation_error',
    field: 'scope.dkim_selectors.0',
  },
  {
    name: 'a scope over 16 KiB',
    body: scheduleBody({ scan_type: 'dast', target: 'https://app.example.com', scope: { notes: 'x'.repeat(17_000) } }),
    status: 400,
    code: 'validation_error',
    field: 'scope',
  },
  {
    name: 'a legacy tag in scope',
    body: scheduleBody({ scope: { source_legacy_id: 7 } }),
    status: 400,
    code: 'validation_error',
    field: 'scope.source_legacy_id',
  },
  { name: 'a missing cadence', body: scheduleBody({ cadence: undefined }), status: 400, code: 'validation_error', field: 'cadence' },
  { name: 'an unknown cadence', body: scheduleBody({ cadence: 'hourly' }), status: 400, code: 'validation_error', field: 'cadence' },
  {
    name: 'custom without cron_expression',
    body: scheduleBody({ cadence: 'custom' }),
    status: 400,
    code: 'validation_error',
    field: 'cron_expression',
  },
  {
    name: 'cron_expression with daily',
    body: scheduleBody({ cron_expression: '0 3 * * *' }),
    status: 400,
    code: 'validation_error',
    field: 'cron_expression',
  },
  {
    name: 'a timezone with daily',
    body: scheduleBody({ timezone: 'Europe/Paris' }),
    status: 400,
    code: 'validation_error',
    field: 'timezone',
  },
  {
    name: 'an unknown timezone',
    body: scheduleBody({ cadence: 'custom', cron_expression: '0 3 * * *', timezone: 'Mars/Olympus' }),
    status: 400,
    code: 'validation_error',
    field: 'timezone',
  },
  { name: 'a 6-field cron with seconds', body: custom('0 0 0 * * *'), status: 400, code: 'validation_error', field: 'cron_expression' },
  { name: 'AWS cron syntax', body: custom('cron(0 2 * * ? *)'), status: 400, code: 'validation_error', field: 'cron_expression' },
  {
    name: 'a day rule EventBridge cannot express',
    body: custom('0 0 */2 * 1'),
    status: 400,
    code: 'validation_error',
    field: 'cron_expression',
  },
  { name: 'a cron that never fires', body: custom('0 0 30 2 *'), status: 400, code: 'validation_error', field: 'cron_expression' },
  { name: 'the L day', body: custom('0 0 L * *'), status: 400, code: 'validation_error', field: 'cron_expression' },
  { name: 'a bare a/n step', body: custom('5/15 * * * *'), status: 400, code: 'validation_error', field: 'cron_expression' },
  { name: 'minute 60', body: custom('60 * * * *'), status: 400, code: 'validation_error', field: 'cron_expression' },
  { name: 'a reversed range', body: custom('0 0 5-1 * *'), status: 400, code: 'validation_error', field: 'cron_expression' },
  { name: '@reboot', body: custom('@reboot'), status: 400, code: 'validation_error', field: 'cron_expression' },
  { name: 'every minute', body: custom('* * * * *'), status: 400, code: 'validation_error', field: 'cron_expression' },
  { name: 'a non-boolean enabled', body: scheduleBody({ enabled: 'yes' }), status: 400, code: 'validation_error', field: 'enabled' },
  { name: 'a client-chosen id', body: scheduleBody({ id: 'sch_mine' }), status: 400, code: 'validation_error', field: 'id' },
  {
    name: 'a write to last_run_status',
    body: scheduleBody({ last_run_status: 'success' }),
    status: 400,
    code: 'validation_error',
    field: 'last_run_status',
  },
  {
    name: 'a write to trigger',
    body: scheduleBody({ trigger: { expressions: ['cron(0 0 * * ? *)'], timezone: 'UTC' } }),
    status: 400,
    code: 'validation_error',
    field: 'trigger',
  },
  {
    name: 'a write to next_run_at',
    body: scheduleBody({ next_run_at: '2030-01-01T00:00:00Z' }),
    status: 400,
    code: 'validation_error',
    field: 'next_run_at',
  },
  { name: 'an unknown field', body: scheduleBody({ owner: 'alice' }), status: 400, code: 'validation_error', field: 'owner' },
  { name: 'an empty PATCH', method: 'PATCH', path: '/api/scans/schedules/{id}/', body: {}, status: 400, code: 'validation_error' },
  {
    name: 'a PATCH of created_at',
    method: 'PATCH',
    path: '/api/scans/schedules/{id}/',
    body: { created_at: '2020-01-01T00:00:00Z' },
    status: 400,
    code: 'validation_error',
    field: 'created_at',
  },
  {
    name: 'a PATCH to custom without a crontab',
    method: 'PATCH',
    path: '/api/scans/schedules/{id}/',
    body: { cadence: 'custom' },
    status: 400,
    code: 'validation_error',
    field: 'cron_expression',
  },
  {
    name: 'a PATCH with a crontab on a daily schedule',
    method: 'PATCH',
    path: '/api/scans/schedules/{id}/',
    body: { cron_expression: '0 4 * * *' },
    status: 400,
    code: 'validation_error',
    field: 'cron_expression',
  },
  {
    name: 'a PATCH whose new scan_type rejects the target',
    method: 'PATCH',
    path: '/api/scans/schedules/{id}/',
    body: { scan_type: 'dast' },
    status: 400,
    code: 'validation_error',
    field: 'target',
  },
  {
    name: 'a PATCH body that is not JSON',
    method: 'PATCH',
    path: '/api/scans/schedules/{id}/',
    raw: 'name=x',
    status: 400,
    code: 'invalid_json',
  },
  {
    name: 'a PATCH sent as form data',
    method: 'PATCH',
    path: '/api/scans/schedules/{id}/',
    raw: 'name=x',
    contentType: 'application/x-www-form-urlencoded',
    status: 415,
    code: 'unsupported_media_type',
  },
  { name: 'limit 0', method: 'GET', path: '/api/scans/schedules/?limit=0', status: 400, code: 'validation_error', field: 'limit' },
  { name: 'limit 201', method: 'GET', path: '/api/scans/schedules/?limit=201', status: 400, code: 'validation_error', field: 'limit' },
  {
    name: 'enabled=yes',
    method: 'GET',
    path: '/api/scans/schedules/?enabled=yes',
    status: 400,
    code: 'validation_error',
    field: 'enabled',
  },
  {
    name: 'an unknown scan_type filter',
    method: 'GET',
    path: '/api/scans/schedules/?scan_type=port_scan',
    status: 400,
    code: 'validation_error',
    field: 'scan_type',
  },
  {
    name: 'a forged cursor',
    method: 'GET',
    path: '/api/scans/schedules/?cursor=bm90LWEtY3Vyc29y',
    status: 400,
    code: 'validation_error',
    field: 'cursor',
  },
  {
    name: 'an unknown query parameter',
    method: 'GET',
    path: '/api/scans/schedules/?owner=alice',
    status: 400,
    code: 'validation_error',
    field: 'owner',
  },
];

describe('bad requests', () => {
  let service: TestService;
  let token: string;
  let existingId: string;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    token = await service.token(freshTenant('acme'), 'admin');
    const created = await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() });
    existingId = created.body.id;
  });

  it('covers at least 40 distinct bad requests', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
  });

  it.each(cases)('answers $name with $status $code and stores nothing', async (badRequest) => {
    const before = await snapshot(service.runtime);
    const headers: Record<string, string> = {};
    if (badRequest.contentType !== undefined) {
      if (badRequest.contentType !== '') headers['content-type'] = badRequest.contentType;
    } else if (badRequest.raw !== undefined || badRequest.body !== undefined) {
      headers['content-type'] = 'application/json';
    }
    const path = (badRequest.path ?? '/api/scans/schedules/').replace('{id}', existingId);
    const raw = badRequest.raw ?? (badRequest.body === undefined ? undefined : JSON.stringify(badRequest.body));

    const reply = await service.call(path, { method: badRequest.method ?? 'POST', token, raw, headers });

    expect(reply.status).toBe(badRequest.status);
    expect(reply.body.error.code).toBe(badRequest.code);
    expect(reply.body.error.request_id).toEqual(expect.any(String));
    if (badRequest.field !== undefined) {
      expect(reply.body.error.details.map((d: { field: string }) => d.field)).toContain(badRequest.field);
    }
    expect(await snapshot(service.runtime)).toBe(before);
  });
});
