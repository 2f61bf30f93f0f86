import { Logger } from '@aws-lambda-powertools/logger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCloudWatchScanLogs } from '../../shared/adapters/logs/cloudwatch-scan-logs.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { finding, ScriptedRunner } from '../helpers/test-runners.ts';

describe('GET /api/scans/{id}/log/', () => {
  let service: TestService;
  const runner = new ScriptedRunner();

  beforeAll(async () => {
    service = await startTestService({ runners: new Map([['email_security', runner]]) });
  });
  afterAll(async () => service?.stop());

  async function finishedScan(tenant: string): Promise<string> {
    runner.behaviour = async (input) => {
      input.logger.info('probing selectors', { selectors: ['s1', 'google'] });
      return { findings: [finding(1)], errors: ['the DNSBL query timed out'] };
    };
    const created = await service.call('/api/scans/', {
      method: 'POST',
      token: await service.token(tenant, 'operator'),
      body: { scan_type: 'email_security', target: 'logs.example' },
    });
    await service.runtime.drain();
    return created.body.id as string;
  }

  it("returns the scan's own lines, oldest first, without its correlation keys, to a viewer", async () => {
    const tenant = freshTenant('log');
    const id = await finishedScan(tenant);

    const reply = await service.call(`/api/scans/${id}/log/`, { token: await service.token(tenant, 'viewer') });

    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ scan_id: id, readable: true, truncated: false, location: { file: expect.stringContaining(id) } });
    const messages = reply.body.items.map((line: any) => line.message);
    expect(messages[0]).toBe('scan started');
    const finished = messages.findIndex((message: string) => /^scan finished/.test(message));
    expect(messages.indexOf('probing selectors')).toBeGreaterThan(0);
    expect(finished).toBeGreaterThan(messages.indexOf('probing selectors'));
    const probe = reply.body.items.find((line: any) => line.message === 'probing selectors');
    expect(probe).toMatchObject({ level: 'INFO', fields: { selectors: ['s1', 'google'] } });
    expect(probe.fields).not.toHaveProperty('tenant');
    expect(probe.fields).not.toHaveProperty('scan_id');
    expect(reply.body.items.some((line: any) => line.level === 'WARN')).toBe(true);
  });

  it("answers 404 for another tenant's scan, a malformed id and an unknown one", async () => {
    const owner = freshTenant('log-owner');
    const id = await finishedScan(owner);
    const stranger = await service.token(freshTenant('log-stranger'));

    const theirs = await service.call(`/api/scans/${id}/log/`, { token: stranger });
    const malformed = await service.call('/api/scans/not-a-scan/log/', { token: stranger });
    const unknown = await service.call('/api/scans/scan_01JZZZZZZZZZZZZZZZZZZZZZZZ/log/', { token: stranger });

    expect([theirs.status, malformed.status, unknown.status]).toEqual([404, 404, 404]);
    expect(theirs.body.error.code).toBe('not_found');
    expect(JSON.stringify(theirs.body)).not.toContain('logs.example');
  });

  it('needs a session', async () => {
    expect((await service.call('/api/scans/scan_01JZZZZZZZZZZZZZZZZZZZZZZZ/log/')).status).toBe(401);
  });

  it('says the lines are not readable where the CloudWatch adapter has no client (dispatch only writes them)', async () => {
    const logs = makeCloudWatchScanLogs('/aws/lambda/dispatch', new Logger({ logLevel: 'SILENT' }));
    expect(await logs.read('acme', 'scan_01', 1000)).toBeNull();
  });
});
