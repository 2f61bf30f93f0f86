import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runnerOf } from '../../shared/adapters/runners/engine-registry.ts';
import mailscan from '../../layers/mailscan/manifest.ts';
import { buildCli } from '../../layers/mailscan/test/helpers/cli.ts';
import { startDnsServerProcess, type DnsServerProcess } from '../../layers/mailscan/test/helpers/dns-server-process.ts';
import { zoneDir } from '../../layers/mailscan/test/helpers/fixtures.ts';
import { FEED_SECRETS, startVendorFakes, VENDOR_KEYS, type VendorFakes } from '../../layers/mailscan/test/helpers/vendor-fakes.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';

const leakZones = fileURLToPath(new URL('../fixtures/mailscan/discover-leak/', import.meta.url));

/** The leak fixtures under a real-looking apex (the API wants a public suffix): brand.test → brandmail.com, brnad.test → brnadmail.com, ... */
function renamed(zone: string): { text: string; origin: string } {
  const apex = `${zone.replace('.test', '')}mail.com`;
  return { text: readFileSync(join(leakZones, `${zone}.zone`), 'utf8').replaceAll(zone, apex), origin: apex };
}

/** The adversary executor end to end: queue message → dispatcher → mailscan CLI → findings (DESIGN §5). */
describe('adversary steps through the local runtime', () => {
  let dns: DnsServerProcess;
  let vendors: VendorFakes;
  let service: TestService;
  let tenant: string;
  let token: string;

  beforeAll(async () => {
    [dns, vendors] = await Promise.all([
      startDnsServerProcess({
        zoneDir,
        zones: ['brand.test', 'brnad.test', 'bran.test', 'brend.test'].map(renamed),
        outOfZone: 'NXDOMAIN',
      }),
      startVendorFakes(),
    ]);
    const configFile = join(mkdtempSync(join(tmpdir(), 'adversary-')), 'mailscan.json');
    writeFileSync(
      configFile,
      JSON.stringify({ dns: { timeout_ms: 2_000, attempts: 2 }, lookalike: { max_candidates: 600, concurrency: 20 } }),
    );
    const env = {
      PATH: process.env.PATH,
      MAILSCAN_NAMESERVERS: dns.address,
      MAILSCAN_ALLOW_LOOPBACK: '1',
      MAILSCAN_CONFIG: configFile,
      ...vendors.urls,
      ...VENDOR_KEYS,
    };
    const bin = await buildCli();
    service = await startTestService({
      runners: ({ artifacts }) => new Map([['email_security', runnerOf(mailscan, { bin, env, artifacts })]]),
    });
  }, 120_000);
  afterAll(async () => {
    await service?.stop();
    await Promise.all([dns?.close(), vendors?.close()]);
  });
  beforeEach(async () => {
    tenant = freshTenant('red');
    token = await service.token(tenant, 'viewer');
  });

  it('makes one job for a step delivered three times, with the base and the adversary findings', async () => {
    const step = { kind: 'adversary', tenant, run_id: 'run-42', step_id: 'recon-1', technique: 'T1598', target: 'brandmail.com' } as const;
    for (let delivery = 0; delivery < 3; delivery += 1) await service.runtime.scanQueue.send(step);
    await service.runtime.drain();

    const { body: listed } = await service.call('/api/scans/?source_type=adversary', { token });
    expect(listed.items).toHaveLength(1);
    const job = listed.items[0];
    expect(job).toMatchObject({
      status: 'succeeded',
      source_type: 'adversary',
      trigger: 'adversary',
      scan_type: 'email_security',
      target: 'brandmail.com',
      schedule_id: null,
      scope: { techniques: ['T1598'], reputation: true, leak: true },
    });
    expect((await service.call('/api/scans/?source_type=manual', { token })).body.items).toEqual([]);

    const { body: found } = await service.call(`/api/findings/?scan_id=${job.id}&limit=200`, { token });
    const rules = new Set(found.items.map((item: { rule_id: string }) => item.rule_id));
    expect([...rules]).toEqual(
      expect.arrayContaining([
        'mailscan.leak.lookalike',
        'mailscan.leak.breachdb_breach',
        'mailscan.leak.commercial_feed',
        'adversary.email.lookalike_phishing_infrastructure',
      ]),
    );

    // The adversary finding names the stored base finding by its fingerprint.
    const base = found.items.find(
      (item: { rule_id: string; evidence: { lookalike?: string } }) =>
        item.rule_id === 'mailscan.leak.lookalike' && item.evidence.lookalike === 'brnadmail.com',
    );
    const adversary = found.items.find(
      (item: { rule_id: string; evidence: { lookalike?: string } }) =>
        item.rule_id === 'adversary.email.lookalike_phishing_infrastructure' && item.evidence.lookalike === 'brnadmail.com',
    );
    expect(adversary.evidence).toMatchObject({
      technique: 'T1598',
      base_rule_id: 'mailscan.leak.lookalike',
      base_fingerprint: base.fingerprint,
    });

    // No password or hash from a feed reaches the findings table.
    const stored = JSON.stringify(found.items);
    for (const secret of FEED_SECRETS) expect(stored).not.toContain(secret);
  });

  it('fails the job of an unsupported technique, saying so', async () => {
    await service.runtime.scanQueue.send({
      kind: 'adversary',
      tenant,
      run_id: 'run-43',
      step_id: 'phish-1',
      technique: 'T1566',
      target: 'brandmail.com',
    });
    await service.runtime.drain();

    const { body: listed } = await service.call('/api/scans/?source_type=adversary', { token });
    const summary = listed.items.find((item: { status: string }) => item.status === 'failed');
    // The list carries summaries; the scan itself carries its errors.
    const { body: job } = await service.call(`/api/scans/${summary.id}/`, { token });
    expect(summary.error_count).toBe(1);
    expect(job.errors).toEqual([{ runner: 'dispatch', message: 'unsupported technique T1566' }]);
    expect(job.finding_count).toBe(0);
  });

  it('refuses scope.techniques from the API', async () => {
    const operator = await service.token(tenant, 'operator');
    const { status, body } = await service.call('/api/scans/', {
      method: 'POST',
      token: operator,
      body: { scan_type: 'email_security', target: 'brandmail.com', scope: { techniques: ['T1598'] } },
    });
    expect(status).toBe(400);
    expect(body.error.details).toEqual([{ field: 'scope.techniques', message: 'is set only by adversary runs' }]);
  });
});
