import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineOf } from '../../layers/build.ts';
import { catalogue as llmCatalogue } from '../../layers/llmscan/src/index.ts';
import { startFakeModel, type FakeModelServer } from '../../layers/llmscan/test/helpers/fake-model-server.ts';
import { DOCUMENTS, PLANTED_SCOPE, SYSTEM_PROMPT } from '../../layers/llmscan/test/helpers/planted.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';

const MINUTE = 60_000;

/**
 * DESIGN §11/§23 end to end: scheduled `ai_red_team` scans fire in the local runtime (as under
 * `ALLOW_LOOPBACK_TARGETS=true npm start`), the built llmscan probes a vulnerable and a hardened
 * loopback assistant through the engine runner, and issues open for the first and not the second.
 */
describe('scheduled ai_red_team scans through the local runtime', () => {
  let service: TestService;
  let vulnerable: FakeModelServer;
  let hardened: FakeModelServer;

  beforeAll(async () => {
    vulnerable = await startFakeModel({ behaviour: 'vulnerable', systemPrompt: SYSTEM_PROMPT, documents: DOCUMENTS });
    hardened = await startFakeModel({ behaviour: 'hardened', systemPrompt: SYSTEM_PROMPT, documents: DOCUMENTS, models: 'absent' });
    const dist = await mkdtemp(join(tmpdir(), 'llm-e2e-'));
    await buildEngineOf('llmscan', join(dist, 'bin', 'llmscan'));
    const runners = makeEngineRunners({ binDir: join(dist, 'bin'), allowLoopback: true });
    service = await startTestService({ allowLoopbackTargets: true, runners: new Map([['ai_red_team', runners.get('ai_red_team')!]]) });
  });
  afterAll(async () => {
    await service?.stop();
    await Promise.all([vulnerable?.close(), hardened?.close()]);
  });

  async function scheduleAndFire(token: string, target: string, scope: Record<string, unknown>) {
    const body = { name: 'Assistant', scan_type: 'ai_red_team', target, scope, cadence: 'custom', cron_expression: '*/5 * * * *' };
    const created = await service.call('/api/scans/schedules/', { method: 'POST', token, body });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  it('refuses a credential the tenant does not have and an unknown scope field at create time, naming the field', async () => {
    const token = await service.token(freshTenant('llm-scope'), 'operator');
    const body = {
      name: 'x',
      scan_type: 'ai_red_team',
      target: `${vulnerable.origin}/v1/chat/completions`,
      cadence: 'custom',
      cron_expression: '*/5 * * * *',
    };

    const credential = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token,
      body: { ...body, scope: { credential: 'prod-key' } },
    });
    const unknown = await service.call('/api/scans/schedules/', { method: 'POST', token, body: { ...body, scope: { temperature: 1 } } });

    expect(credential.status).toBe(400);
    expect(credential.body.error.details).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: expect.stringContaining('credential') })]),
    );
    expect(unknown.status).toBe(400);
  });

  it('opens issues for the vulnerable assistant and none for the hardened one', async () => {
    const tenant = freshTenant('llm');
    const token = await service.token(tenant, 'operator');
    const common = { ...PLANTED_SCOPE, repeats: 1, rate: 10, seed: 5 };
    const bad = await scheduleAndFire(token, `${vulnerable.origin}/v1/chat/completions`, common);
    // Credentials wait for the vault, so an endpoint that answers is reported open: the hardened
    // scan leaves the endpoint family out to show every other rule absent.
    const good = await scheduleAndFire(token, `${hardened.origin}/v1/chat/completions`, {
      ...common,
      families: ['prompt_injection', 'system_prompt', 'data', 'pii', 'output', 'jailbreak', 'agency'],
    });

    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();

    const scanOf = async (id: string) => {
      const schedule = (await service.call(`/api/scans/schedules/${id}/`, { token })).body;
      return (await service.call(`/api/scans/${schedule.last_scan_id}/`, { token })).body;
    };
    const badScan = await scanOf(bad);
    const goodScan = await scanOf(good);
    expect(badScan).toMatchObject({ status: 'succeeded', scan_type: 'ai_red_team', trigger: 'cron', errors: [] });
    expect(goodScan).toMatchObject({ status: 'succeeded', errors: [] });
    expect(badScan.checks.map((check: { id: string }) => check.id)).toEqual(llmCatalogue.map((rule) => rule.rule_id));
    expect(badScan.checks.every((check: { status: string }) => check.status === 'fail')).toBe(true);
    expect(goodScan.checks.filter((check: { status: string }) => check.status === 'fail')).toEqual([]);

    const issues = (await service.call('/api/issues/?limit=100', { token })).body.items as { rule_id: string; target: string }[];
    expect(issues.filter((issue) => issue.target.includes(hardened.origin.replace('http://', '')))).toEqual([]);
    expect(issues.map((issue) => issue.rule_id).sort()).toEqual(llmCatalogue.map((rule) => rule.rule_id).sort());
  });
});
