/**
 * The per-severity SLA (DESIGN §15, docs/digests-and-sla.md): a tenant sets days per severity,
 * every issue's due date is its first sighting plus its severity's days, `overdue=true` lists
 * the open issues past it, and a changed SLA moves every due date at once. Bad input is refused
 * field by field and stores nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { ScriptedRunner, finding } from '../helpers/test-runners.ts';

const DAY = 86_400_000;
const SLA = { critical: 3, high: 7, medium: 30, low: null, info: null };

interface ListedIssue {
  id: string;
  rule_id: string;
  severity: string;
  status: string;
  first_seen_at: string;
  due_at: string | null;
  overdue: boolean;
}

describe('issue SLA (DESIGN §15)', () => {
  let service: TestService;
  let runner: ScriptedRunner;
  let tenant: string;
  let admin: string;

  beforeAll(async () => {
    runner = new ScriptedRunner();
    service = await startTestService({ runners: new Map([['email_security', runner]]) });
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    tenant = freshTenant('sla');
    admin = await service.token(tenant, 'admin');
  });

  const list = async (query = ''): Promise<ListedIssue[]> => {
    const reply = await service.call(`/api/issues/${query}`, { token: admin });
    expect(reply.status, JSON.stringify(reply.body)).toBe(200);
    return reply.body.items;
  };
  const putSla = (body: unknown, token = admin) => service.call('/api/settings/sla', { method: 'PUT', token, body });

  /** One scan opening a high, a medium and a low issue now. */
  async function openThree(): Promise<void> {
    runner.behaviour = async () => ({
      findings: [
        finding(1, { rule_id: 'mailscan.spf.missing', severity: 'high' }),
        finding(2, { rule_id: 'mailscan.dmarc.missing', severity: 'medium' }),
        finding(3, { rule_id: 'mailscan.dnssec.unsigned', severity: 'low' }),
      ],
    });
    await service.call('/api/scans/', { method: 'POST', token: admin, body: { scan_type: 'email_security', target: 'sla.example' } });
    await service.runtime.drain();
  }

  it('has no SLA until the tenant sets one: no due dates, nothing overdue', async () => {
    await openThree();
    service.clock.advance(400 * DAY);

    expect((await service.call('/api/settings/sla', { token: admin })).body).toEqual({
      critical: null,
      high: null,
      medium: null,
      low: null,
      info: null,
      updated_at: null,
      updated_by: null,
    });
    expect((await list()).map((issue) => [issue.due_at, issue.overdue])).toEqual([
      [null, false],
      [null, false],
      [null, false],
    ]);
    expect(await list('?overdue=true')).toEqual([]);
  });

  it('dates each issue from its first sighting, lists the overdue, and follows a changed SLA at once', async () => {
    await openThree();
    const opened = await list();
    const firstSeen = Date.parse(opened[0].first_seen_at);

    const set = await putSla(SLA);
    service.clock.advance(8 * DAY);
    const afterEightDays = await list();
    const overdue = await list('?overdue=true');
    const overdueHigh = await list('?overdue=true&severity=high');
    const overdueResolved = await list('?overdue=true&status=resolved');
    await putSla({ ...SLA, high: 10, medium: 5 });
    const afterChange = await list();
    const overdueAfterChange = await list('?overdue=true');

    expect(set.status).toBe(200);
    expect(set.body).toEqual({ ...SLA, updated_at: expect.any(String), updated_by: `admin@${tenant}` });
    expect(afterEightDays.map((issue) => [issue.severity, issue.due_at, issue.overdue])).toEqual([
      ['high', new Date(firstSeen + 7 * DAY).toISOString(), true],
      ['medium', new Date(firstSeen + 30 * DAY).toISOString(), false],
      ['low', null, false],
    ]);
    expect(overdue.map((issue) => issue.severity)).toEqual(['high']);
    expect(overdueHigh.map((issue) => issue.severity)).toEqual(['high']);
    expect(overdueResolved).toEqual([]);
    expect(afterChange.map((issue) => [issue.severity, issue.due_at, issue.overdue])).toEqual([
      ['high', new Date(firstSeen + 10 * DAY).toISOString(), false],
      ['medium', new Date(firstSeen + 5 * DAY).toISOString(), true],
      ['low', null, false],
    ]);
    expect(overdueAfterChange.map((issue) => issue.severity)).toEqual(['medium']);
  });

  it('does not call an accepted risk or a false positive overdue, and shows the due date on the issue and in the CSV', async () => {
    await openThree();
    await putSla(SLA);
    const [high, medium] = await list();
    await service.call(`/api/issues/${high.id}/`, { method: 'PATCH', token: admin, body: { status: 'false_positive', reason: 'test' } });
    service.clock.advance(31 * DAY);

    const overdue = await list('?overdue=true');
    const detail = (await service.call(`/api/issues/${medium.id}/`, { token: admin })).body;
    const csv = await (
      await fetch(`${service.runtime.url}/api/issues/export.csv?overdue=true`, { headers: { authorization: `Bearer ${admin}` } })
    ).text();

    expect(overdue.map((issue) => issue.id)).toEqual([medium.id]);
    expect(detail).toMatchObject({ id: medium.id, due_at: medium.due_at, overdue: true });
    const [header, row, ...rest] = csv.trim().split('\r\n');
    expect(header.split(',').slice(-3)).toEqual(['"assignee"', '"due_at"', '"overdue"']);
    expect(row.split(',').slice(-2)).toEqual([`"${medium.due_at}"`, '"true"']);
    expect(rest).toEqual([]);
  });

  it('refuses bad SLAs field by field and stores nothing', async () => {
    await putSla(SLA);
    const before = (await service.call('/api/settings/sla', { token: admin })).body;

    const missing = await putSla({ critical: 3, high: 7 });
    const wrong = await putSla({ critical: 0, high: 2.5, medium: '30', low: -1, info: 4000 });
    const unknown = await putSla({ ...SLA, urgent: 1 });
    const notAnObject = await putSla([1, 2, 3]);
    const byOperator = await putSla(SLA, await service.token(tenant, 'operator'));
    const overdueFalse = await service.call('/api/issues/?overdue=false', { token: admin });

    for (const reply of [missing, wrong, unknown, notAnObject]) expect(reply.status, JSON.stringify(reply.body)).toBe(400);
    expect(missing.body.error.details).toEqual([
      { field: 'medium', message: 'is required (days, or null for no due date)' },
      { field: 'low', message: 'is required (days, or null for no due date)' },
      { field: 'info', message: 'is required (days, or null for no due date)' },
    ]);
    expect(wrong.body.error.details).toEqual([
      { field: 'critical', message: 'must be at least 1 day' },
      { field: 'high', message: 'must be a whole number of days' },
      { field: 'medium', message: 'must be a number of days or null' },
      { field: 'low', message: 'must be at least 1 day' },
      { field: 'info', message: 'must be at most 3650 days' },
    ]);
    expect(unknown.body.error.details).toEqual([{ field: 'urgent', message: 'is not a known field' }]);
    expect(byOperator.status).toBe(403);
    expect(overdueFalse.status).toBe(400);
    expect(overdueFalse.body.error.details).toEqual([{ field: 'overdue', message: 'must be true (leave it out for every issue)' }]);
    expect((await service.call('/api/settings/sla', { token: admin })).body).toEqual(before);
  });
});
