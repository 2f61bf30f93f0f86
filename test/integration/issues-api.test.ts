import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunnerCheck } from '../../shared/ports/scan-runner.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { ScriptedRunner, finding } from '../helpers/test-runners.ts';

const pass = (...rules: string[]): RunnerCheck[] =>
  rules.map((id) => ({ id, title: id, status: 'pass', detail: '', coverage: { kind: 'target' } }));

describe('issues API (DESIGN §15)', () => {
  let service: TestService;
  let runner: ScriptedRunner;
  let tenant: string;
  let token: string;

  beforeAll(async () => {
    runner = new ScriptedRunner();
    service = await startTestService({ runners: new Map([['email_security', runner]]) });
  });
  afterAll(() => service.stop());
  beforeEach(async () => {
    tenant = freshTenant('iss');
    token = await service.token(tenant, 'operator');
  });

  async function scan(target: string): Promise<string> {
    const reply = await service.call('/api/scans/', { method: 'POST', token, body: { scan_type: 'email_security', target } });
    await service.runtime.drain();
    return reply.body.id as string;
  }

  it('lists one issue per problem across scans, filters by target in any case and by rule prefix, and reads occurrences', async () => {
    runner.behaviour = async () => ({
      findings: [
        finding(1, { rule_id: 'mailscan.spf.missing', severity: 'high' }),
        finding(2, { rule_id: 'mailscan.dmarc.missing', severity: 'medium' }),
      ],
    });
    await scan('bücher.example');
    service.clock.advance(3_600_000);
    const second = await scan('bücher.example');

    const all = (await service.call('/api/issues/', { token })).body;
    const byTarget = (await service.call(`/api/issues/?target=${encodeURIComponent('XN--BCHER-KVA.Example')}`, { token })).body;
    const byRule = (await service.call('/api/issues/?rule_id=mailscan.spf', { token })).body;
    const detail = (await service.call(`/api/issues/${all.items[0].id}/`, { token })).body;
    const changes = (await service.call(`/api/scans/${second}/changes/`, { token })).body;

    expect(all.items.map((issue: { rule_id: string; occurrence_count: number }) => [issue.rule_id, issue.occurrence_count])).toEqual([
      ['mailscan.spf.missing', 2],
      ['mailscan.dmarc.missing', 2],
    ]);
    expect(byTarget.items).toHaveLength(2);
    expect(byRule.items.map((issue: { rule_id: string }) => issue.rule_id)).toEqual(['mailscan.spf.missing']);
    expect(detail.occurrences).toHaveLength(2);
    expect(detail.occurrences[0].scan_id).toBe(second);
    expect(changes).toEqual({ scan_id: second, changes: { new: 0, resolved: 0, reopened: 0, unchanged: 2 }, items: [], truncated: false });
    // The rule picker's choices: the catalogue rules this tenant has issues of, by id, with their titles.
    expect((await service.call('/api/issues/rules/', { token })).body).toEqual({
      items: [
        { rule_id: 'mailscan.dmarc.missing', title: expect.any(String) },
        { rule_id: 'mailscan.spf.missing', title: 'No SPF record' },
      ],
    });
    expect((await service.call('/api/issues/rules/', { token: await service.token(freshTenant('iss'), 'viewer') })).body).toEqual({
      items: [],
    });
  });

  it('resolves on a passing check, lists the change, and reopens when seen again', async () => {
    runner.behaviour = async () => ({
      findings: [finding(1, { rule_id: 'mailscan.spf.missing' })],
      checks: pass('mailscan.dmarc.missing'),
    });
    await scan('example.com');
    runner.behaviour = async () => ({ findings: [], checks: pass('mailscan.spf.missing') });
    const resolving = await scan('example.com');
    runner.behaviour = async () => ({ findings: [finding(1, { rule_id: 'mailscan.spf.missing' })], checks: [] });
    const reopening = await scan('example.com');

    const resolved = (await service.call(`/api/scans/${resolving}/changes/`, { token })).body;
    const reopened = (await service.call(`/api/scans/${reopening}/`, { token })).body;
    const issue = (await service.call('/api/issues/', { token })).body.items[0];

    expect(resolved.changes).toEqual({ new: 0, resolved: 1, reopened: 0, unchanged: 0 });
    expect(resolved.items.map((item: { change: string }) => item.change)).toEqual(['resolved']);
    expect(reopened.changes).toEqual({ new: 0, resolved: 0, reopened: 1, unchanged: 0 });
    expect(issue).toMatchObject({ status: 'open', reopened_count: 1, occurrence_count: 2 });
  });

  it('lets an operator accept a risk until a date, with a reason, and a viewer only read', async () => {
    runner.behaviour = async () => ({ findings: [finding(1)] });
    await scan('example.com');
    const { id } = (await service.call('/api/issues/', { token })).body.items[0];
    const viewer = await service.token(tenant, 'viewer');
    const until = new Date(service.clock.now().getTime() + 86_400_000).toISOString();

    const noReason = await service.call(`/api/issues/${id}/`, { method: 'PATCH', token, body: { status: 'accepted_risk' } });
    const forbidden = await service.call(`/api/issues/${id}/`, {
      method: 'PATCH',
      token: viewer,
      body: { status: 'false_positive', reason: 'x' },
    });
    const accepted = await service.call(`/api/issues/${id}/`, {
      method: 'PATCH',
      token,
      body: { status: 'accepted_risk', reason: 'vendor fix in Q3', until },
    });
    const openNow = (await service.call('/api/issues/?status=open', { token })).body.items;
    service.clock.advance(2 * 86_400_000);
    const openLater = (await service.call('/api/issues/?status=open', { token })).body.items;
    const elsewhere = await service.call(`/api/issues/${id}/`, { token: await service.token(freshTenant('other'), 'admin') });

    expect(noReason.status).toBe(400);
    expect(noReason.body.error.details).toEqual([{ field: 'reason', message: 'is required for status accepted_risk' }]);
    expect(forbidden.status).toBe(403);
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'accepted_risk', status_reason: 'vendor fix in Q3', status_until: until });
    expect(openNow).toEqual([]);
    expect(openLater.map((issue: { id: string }) => issue.id)).toEqual([id]);
    expect(elsewhere.status).toBe(404);
  });

  it('assigns, comments and keeps a history of every status change with who and why', async () => {
    runner.behaviour = async () => ({ findings: [finding(7)] });
    await scan('history.example');
    const { id } = (await service.call('/api/issues/?target=history.example', { token })).body.items[0];

    const assigned = await service.call(`/api/issues/${id}/`, {
      method: 'PATCH',
      token,
      body: { assignee: 'dana@example.com', comment: 'ticket SEC-42' },
    });
    await service.call(`/api/issues/${id}/`, { method: 'PATCH', token, body: { status: 'false_positive', reason: 'test host' } });
    await service.call(`/api/issues/${id}/`, { method: 'PATCH', token, body: { status: 'open' } });
    const empty = await service.call(`/api/issues/${id}/`, { method: 'PATCH', token, body: {} });
    const detail = (await service.call(`/api/issues/${id}/`, { token })).body;

    expect(assigned.body).toMatchObject({ assignee: 'dana@example.com', status: 'open' });
    expect(empty.status).toBe(400);
    expect(detail.comments).toEqual([{ at: expect.any(String), by: expect.any(String), text: 'ticket SEC-42' }]);
    expect(
      detail.history.map((entry: { from: string | null; to: string; reason: string | null }) => [entry.from, entry.to, entry.reason]),
    ).toEqual([
      [null, 'open', 'first seen'],
      ['open', 'false_positive', 'test host'],
      ['false_positive', 'open', null],
    ]);
    expect(detail.history[1].by).toBe(detail.comments[0].by);
  });

  it('exports every page as spreadsheet-safe CSV', async () => {
    runner.behaviour = async () => ({
      findings: Array.from({ length: 230 }, (_, i) => finding(i, { title: i === 0 ? '=HYPERLINK("http://evil")' : `finding ${i}` })),
    });
    await scan('example.com');

    const response = await fetch(`${service.runtime.url}/api/issues/export.csv`, { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();
    const lines = text.trimEnd().split('\r\n');

    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(lines[0]).toBe(
      '"id","status","severity","rule_id","title","subject","scan_type","scan_types","target","first_seen_at","last_seen_at","occurrence_count","reopened_count","last_scan_id","schedule_id","resolved_at","status_reason","status_until","assignee","due_at","overdue"',
    );
    expect(lines).toHaveLength(231);
    expect(text).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(text).not.toMatch(/,=HYPERLINK/);
  });
});
