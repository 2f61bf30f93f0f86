import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NOTIFICATION_RULE_QUOTA } from '../../shared/services/notification-service.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';

const hook = (url = 'https://hooks.example.com/scan', extra: Record<string, unknown> = {}) => ({
  name: 'security hook',
  kind: 'webhook',
  url,
  events: ['issue.opened', 'scan.finished'],
  ...extra,
});

describe('notification rules API (DESIGN §15)', () => {
  let service: TestService;
  let tenant: string;
  let admin: string;
  const receivers: { close(): Promise<void> }[] = [];

  beforeAll(async () => {
    service = await startTestService({ allowLoopbackTargets: true });
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    tenant = freshTenant('ntf');
    admin = await service.token(tenant, 'admin');
  });
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
  });

  const rules = async () => (await service.call('/api/notifications/', { token: admin })).body.items as Record<string, unknown>[];

  it('creates a webhook rule whose secret is in the create answer only', async () => {
    const created = await service.call('/api/notifications/', { method: 'POST', token: admin, body: hook() });
    const read = await service.call(`/api/notifications/${created.body.id}/`, { token: admin });

    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/api/notifications/${created.body.id}/`);
    expect(created.body).toMatchObject({
      name: 'security hook',
      kind: 'webhook',
      url: 'https://hooks.example.com/scan',
      address: null,
      events: ['issue.opened', 'scan.finished'],
      min_severity: 'info',
      scan_types: null,
      schedule_ids: null,
      enabled: true,
    });
    expect(created.body.secret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(read.status).toBe(200);
    const { secret: _secret, ...withoutSecret } = created.body;
    expect(read.body).toEqual(withoutSecret);
    expect(await rules()).toEqual([withoutSecret]);
  });

  it('creates an email rule without a secret', async () => {
    const created = await service.call('/api/notifications/', {
      method: 'POST',
      token: admin,
      body: { name: 'mail', kind: 'email', address: 'secops@example.com', events: ['issue.opened'], min_severity: 'high' },
    });

    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ kind: 'email', url: null, address: 'secops@example.com', min_severity: 'high' });
    expect(created.body).not.toHaveProperty('secret');
  });

  it.each([
    ['a plain-http URL off loopback', hook('http://hooks.example.com/x'), 'url'],
    ['a private address', hook('https://10.1.2.3/x'), 'url'],
    ['the metadata address', hook('https://169.254.169.254/latest'), 'url'],
    ['credentials in the URL', hook('https://user:pw@hooks.example.com/x'), 'url'],
    ['no URL for a webhook', { name: 'x', kind: 'webhook', events: ['issue.opened'] }, 'url'],
    ['an address on a webhook', hook(undefined, { address: 'a@example.com' }), 'address'],
    ['no events', hook(undefined, { events: [] }), 'events'],
    ['an unknown event', hook(undefined, { events: ['issue.closed'] }), 'events.0'],
    ['a repeated event', hook(undefined, { events: ['issue.opened', 'issue.opened'] }), 'events'],
    ['an unknown kind', hook(undefined, { kind: 'sms' }), 'kind'],
    ['a secret chosen by the client', hook(undefined, { secret: 'mine' }), 'secret'],
    ['an unknown field', hook(undefined, { channel: '#sec' }), 'channel'],
  ])('refuses %s with a 400 naming the field, and stores nothing', async (_case, body, field) => {
    const reply = await service.call('/api/notifications/', { method: 'POST', token: admin, body });

    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('validation_error');
    expect(reply.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
    expect(await rules()).toEqual([]);
  });

  it('is for admins only: operators and viewers get 403 and change nothing', async () => {
    const created = (await service.call('/api/notifications/', { method: 'POST', token: admin, body: hook() })).body;
    for (const role of ['operator', 'viewer'] as const) {
      const token = await service.token(tenant, role);
      const replies = await Promise.all([
        service.call('/api/notifications/', { token }),
        service.call('/api/notifications/', { method: 'POST', token, body: hook() }),
        service.call(`/api/notifications/${created.id}/`, { token }),
        service.call(`/api/notifications/${created.id}/`, { method: 'PATCH', token, body: { enabled: false } }),
        service.call(`/api/notifications/${created.id}/`, { method: 'DELETE', token }),
        service.call(`/api/notifications/${created.id}/test/`, { method: 'POST', token }),
      ]);
      expect(replies.map((reply) => reply.status)).toEqual([403, 403, 403, 403, 403, 403]);
    }
    expect((await rules()).map((rule) => [rule.id, rule.enabled])).toEqual([[created.id, true]]);
  });

  it('changes a rule, clears its filters with null, and refuses the kind as read-only', async () => {
    const created = (
      await service.call('/api/notifications/', { method: 'POST', token: admin, body: hook(undefined, { scan_types: ['email_security'] }) })
    ).body;
    const path = `/api/notifications/${created.id}/`;

    const changed = await service.call(path, {
      method: 'PATCH',
      token: admin,
      body: { events: ['issue.resolved'], min_severity: 'critical', scan_types: null, enabled: false },
    });
    const kind = await service.call(path, { method: 'PATCH', token: admin, body: { kind: 'slack' } });
    const address = await service.call(path, { method: 'PATCH', token: admin, body: { address: 'a@example.com' } });
    const privateUrl = await service.call(path, { method: 'PATCH', token: admin, body: { url: 'https://192.168.1.1/' } });

    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ events: ['issue.resolved'], min_severity: 'critical', scan_types: null, enabled: false });
    expect(changed.body).not.toHaveProperty('secret');
    expect([kind.status, kind.body.error.details[0]]).toEqual([400, { field: 'kind', message: 'is read-only' }]);
    expect([address.status, address.body.error.details[0].field]).toEqual([400, 'address']);
    expect([privateUrl.status, privateUrl.body.error.details[0].field]).toEqual([400, 'url']);
    expect((await service.call(path, { token: admin })).body).toEqual(changed.body);
  });

  it("deletes a rule; another tenant's rule and unknown ids are 404", async () => {
    const created = (await service.call('/api/notifications/', { method: 'POST', token: admin, body: hook() })).body;
    const other = await service.token(freshTenant('ntf-other'), 'admin');

    const foreign = await service.call(`/api/notifications/${created.id}/`, { token: other });
    const foreignDelete = await service.call(`/api/notifications/${created.id}/`, { method: 'DELETE', token: other });
    const deleted = await service.call(`/api/notifications/${created.id}/`, { method: 'DELETE', token: admin });
    const again = await service.call(`/api/notifications/${created.id}/`, { token: admin });
    const malformed = await service.call('/api/notifications/ntf_nope/', { token: admin });

    expect([foreign.status, foreignDelete.status, deleted.status, again.status, malformed.status]).toEqual([404, 404, 204, 404, 404]);
    expect(again.body.error.message).toBe(`notification rule ${created.id} not found`);
    expect(await rules()).toEqual([]);
  });

  it(`holds at most ${NOTIFICATION_RULE_QUOTA} rules per tenant`, async () => {
    for (let n = 0; n < NOTIFICATION_RULE_QUOTA; n += 1)
      expect(
        (await service.call('/api/notifications/', { method: 'POST', token: admin, body: hook(undefined, { name: `r${n}` }) })).status,
      ).toBe(201);

    const over = await service.call('/api/notifications/', { method: 'POST', token: admin, body: hook() });

    expect([over.status, over.body.error.code]).toEqual([409, 'quota_exceeded']);
    expect(await rules()).toHaveLength(NOTIFICATION_RULE_QUOTA);
  });

  it('sends a signed test event to a webhook and says what the endpoint answered', async () => {
    const healthy = await startWebhookReceiver();
    const failing = await startWebhookReceiver({ alwaysFail: true });
    receivers.push(healthy, failing);
    const good = (await service.call('/api/notifications/', { method: 'POST', token: admin, body: hook(healthy.url) })).body;
    const bad = (await service.call('/api/notifications/', { method: 'POST', token: admin, body: hook(failing.url) })).body;
    healthy.useSecret(good.secret);
    failing.useSecret(bad.secret);

    const delivered = await service.call(`/api/notifications/${good.id}/test/`, { method: 'POST', token: admin });
    const refused = await service.call(`/api/notifications/${bad.id}/test/`, { method: 'POST', token: admin });

    expect(delivered.status).toBe(200);
    expect(delivered.body).toEqual({
      delivered: true,
      event_id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      status_code: 204,
      error: null,
    });
    expect([...healthy.accepted.keys()]).toEqual([delivered.body.event_id]);
    expect(healthy.accepted.get(delivered.body.event_id)!.eventType).toBe('notification.test');
    expect(healthy.badSignatures).toEqual([]);
    expect(refused.body).toEqual({
      delivered: false,
      event_id: refused.body.event_id,
      status_code: 500,
      error: 'the endpoint answered 500',
    });
    expect([...failing.attempts.values()]).toEqual([1]);
  });
});
