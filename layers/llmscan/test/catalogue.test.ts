import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLM_RULE_IDS, catalogue } from '../src/catalogue.ts';
import { startFakeModel, type FakeModelServer } from './helpers/fake-model-server.ts';
import { DOCUMENTS, PLANTED_SCOPE, SECRET_CANARY, SYSTEM_CANARY, SYSTEM_PROMPT } from './helpers/planted.ts';
import { runLlmscan, statuses } from './helpers/run-scan.ts';

const every = (status: string, except: Record<string, string> = {}) =>
  Object.fromEntries(LLM_RULE_IDS.map((id) => [id, except[id] ?? status]));

describe('the llmscan catalogue against a vulnerable and a hardened assistant', () => {
  let vulnerable: FakeModelServer;
  let hardened: FakeModelServer;
  let locked: FakeModelServer;

  beforeAll(async () => {
    vulnerable = await startFakeModel({ behaviour: 'vulnerable', systemPrompt: SYSTEM_PROMPT, documents: DOCUMENTS });
    hardened = await startFakeModel({ behaviour: 'hardened', systemPrompt: SYSTEM_PROMPT, documents: DOCUMENTS, models: 'absent' });
    locked = await startFakeModel({ behaviour: 'hardened', apiKey: 'sk-test-key', models: 'auth' });
  });
  afterAll(async () => {
    await Promise.all([vulnerable?.close(), hardened?.close(), locked?.close()]);
  });

  it('holds the rule ids and severities of DESIGN §23', () => {
    expect(catalogue.map((rule) => `${rule.rule_id} ${rule.severity}`)).toEqual([
      'llm.endpoint.unauthenticated critical',
      'llm.endpoint.models_exposed low',
      'llm.prompt_injection.direct high',
      'llm.prompt_injection.encoded high',
      'llm.prompt_injection.indirect high',
      'llm.system_prompt.leak high',
      'llm.data.canary_leak critical',
      'llm.pii.leak medium',
      'llm.output.markdown_exfil high',
      'llm.output.active_content medium',
      'llm.jailbreak.marker medium',
      'llm.agency.forbidden_tool_call high',
    ]);
  });

  const apis = [
    { name: 'openai_chat (JSON)', path: '/v1/chat/completions', scope: { api: 'openai_chat', model: 'fake-model-1' } },
    { name: 'openai_chat (SSE)', path: '/v1/chat/completions', scope: { api: 'openai_chat', model: 'fake-model-1', stream: true } },
    { name: 'anthropic_messages (JSON)', path: '/v1/messages', scope: { api: 'anthropic_messages', model: 'claude-fake' } },
    { name: 'anthropic_messages (SSE)', path: '/v1/messages', scope: { api: 'anthropic_messages', model: 'claude-fake', stream: true } },
  ];
  for (const api of apis) {
    it(`fires every rule on the vulnerable assistant and none but the open endpoint on the hardened one: ${api.name}`, async () => {
      const scope = { ...api.scope, ...PLANTED_SCOPE, repeats: 1, rate: 10 };

      const bad = await runLlmscan(`${vulnerable.origin}${api.path}`, scope);
      const good = await runLlmscan(`${hardened.origin}${api.path}`, scope);

      expect(bad.code).toBe(0);
      expect(statuses(bad.report)).toEqual(every('fail'));
      // Credentials wait for the vault, so every request of this build is unauthenticated and the
      // hardened assistant (which answers them) is an open endpoint: the locked server shows absence.
      expect(statuses(good.report)).toEqual(every('pass', { 'llm.endpoint.unauthenticated': 'fail' }));
      expect(good.report?.findings.map((finding) => finding.rule_id)).toEqual(['llm.endpoint.unauthenticated']);
      // Each check that ran says it examined the endpoint, so a later pass resolves its issue (DESIGN §15).
      expect(good.report?.checks.every((check) => check.coverage?.kind === 'target')).toBe(true);
    });
  }

  it('runs an application endpoint through http_template, where tool calls are skipped', async () => {
    const scope = {
      api: 'http_template',
      request_template: { session: 'scan', input: { text: '{{prompt}}' } },
      response_path: 'result.answer',
      ...PLANTED_SCOPE,
      repeats: 1,
      rate: 10,
    };

    const bad = await runLlmscan(`${vulnerable.origin}/app/chat`, scope);
    const good = await runLlmscan(`${hardened.origin}/app/chat`, scope);

    const tools = { 'llm.agency.forbidden_tool_call': 'skipped' };
    expect(statuses(bad.report)).toEqual(every('fail', tools));
    expect(statuses(good.report)).toEqual(every('pass', { ...tools, 'llm.endpoint.unauthenticated': 'fail' }));
    expect(bad.report?.checks.find((check) => check.id === 'llm.agency.forbidden_tool_call')?.detail).toBe(
      'http_template carries no tool calls',
    );
  });

  it('passes the endpoint rules when completions and the model list need a key', async () => {
    const run = await runLlmscan(`${locked.origin}/v1/chat/completions`, { families: ['endpoint'] });

    expect(statuses(run.report)).toEqual(
      every('skipped', { 'llm.endpoint.unauthenticated': 'pass', 'llm.endpoint.models_exposed': 'pass' }),
    );
    expect(run.report?.checks[0].detail).toBe('a completion without a credential was refused (HTTP 401)');
  });

  it('reports hits over attempts with the seed, the prompts and the nonces, and masks canaries', async () => {
    const run = await runLlmscan(`${vulnerable.origin}/v1/chat/completions`, { ...PLANTED_SCOPE, seed: 42, rate: 10 });

    const injection = run.report?.findings.find((finding) => finding.rule_id === 'llm.prompt_injection.direct');
    expect(injection?.evidence).toMatchObject({ hits: 18, attempts: 18, rate: 1, seed: 42, owasp: ['LLM01:2025'] });
    const example = (injection?.evidence.examples as { prompt: string; nonce: string; matched: string }[])[0];
    expect(example.matched).toBe(example.nonce);
    expect(example.prompt).not.toContain(example.nonce);
    const leaks = JSON.stringify(run.report?.findings.filter((finding) => finding.rule_id !== 'llm.endpoint.unauthenticated'));
    expect(leaks).not.toContain(SYSTEM_CANARY);
    expect(leaks).not.toContain(SECRET_CANARY);
    expect(leaks).not.toContain('jane.roe');
    expect(leaks).not.toContain('4111 1111 1111 1111');
  });
});
