/**
 * What the tenant pays for, counted from the fake's side: max_requests, max_tokens, the rate and
 * Retry-After are never exceeded (on a virtual clock, so nothing sleeps); and the hostile
 * endpoints of §23 make `error` checks, never a pass, and never run past the deadline.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModelOptions, type FakeModelServer } from './helpers/fake-model-server.ts';
import { runLlmscan, statuses, virtualClock } from './helpers/run-scan.ts';

const servers: FakeModelServer[] = [];
async function fake(options: FakeModelOptions): Promise<FakeModelServer> {
  const server = await startFakeModel(options);
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const completions = (server: FakeModelServer) => server.log.filter((entry) => entry.method === 'POST');
const ONE_AT_A_TIME = { LLMSCAN_CONCURRENCY: '1' };

describe('llmscan limits, counted by the server', () => {
  it('sends no more than max_requests, never closer than 1/rate seconds, each asking max_tokens', async () => {
    const clock = virtualClock();
    const server = await fake({ behaviour: 'vulnerable', now: clock.now });

    const run = await runLlmscan(
      `${server.origin}/v1/chat/completions`,
      { max_requests: 20, rate: 2, max_tokens: 16 },
      { clock, env: ONE_AT_A_TIME },
    );

    expect(server.log).toHaveLength(20);
    const at = server.log.map((entry) => entry.at);
    for (let i = 0; i + 1 < at.length; i += 1) expect(at[i + 1] - at[i]).toBeGreaterThanOrEqual(500);
    for (const entry of completions(server)) expect(entry.body?.max_tokens).toBe(16);
    expect(Math.max(...completions(server).map((entry) => entry.outputTokens))).toBeLessThanOrEqual(16);
    // What was answered decides; the rules the cut left without an attempt are errors, not passes.
    expect(run.report?.status).toBe('partial');
    expect(run.report?.checks.find((check) => check.id === 'llm.prompt_injection.direct')?.status).toBe('fail');
    expect(run.report?.checks.find((check) => check.id === 'llm.jailbreak.marker')).toMatchObject({
      status: 'error',
      detail: 'no attempt was sent: max_requests (20) reached',
    });
  });

  it('keeps the rate with four attempts in flight (real time, loopback)', async () => {
    const server = await fake({ behaviour: 'hardened' });

    await runLlmscan(
      `${server.origin}/v1/chat/completions`,
      { max_requests: 12, rate: 10, families: ['jailbreak', 'pii'] },
      { clock: 'system', env: { LLMSCAN_CONCURRENCY: '4' } },
    );

    const at = server.log.map((entry) => entry.at);
    expect(at).toHaveLength(12);
    // Ten a second: any eleven requests span a second (less the loopback's jitter).
    expect(at[10] - at[0]).toBeGreaterThanOrEqual(990);
  });

  it('waits out Retry-After after a 429 before the next request to the origin, retries counted', async () => {
    const clock = virtualClock();
    const server = await fake({ behaviour: 'vulnerable', now: clock.now, rateLimit: { count: 2, retryAfterSeconds: 7 } });

    const run = await runLlmscan(
      `${server.origin}/v1/messages`,
      { api: 'anthropic_messages', model: 'm', families: ['jailbreak'], repeats: 1, rate: 10, max_requests: 5 },
      { clock, env: ONE_AT_A_TIME },
    );

    expect(server.log.map((entry) => entry.status)).toEqual([429, 429, 200, 200, 200]);
    expect(server.log[1].at - server.log[0].at).toBeGreaterThanOrEqual(7000);
    expect(server.log[2].at - server.log[1].at).toBeGreaterThanOrEqual(7000);
    expect(run.report?.checks.find((check) => check.id === 'llm.jailbreak.marker')?.status).toBe('fail');
  });

  it('makes every check an error, within max_requests and the deadline, when every answer is 429', async () => {
    const clock = virtualClock();
    const server = await fake({ behaviour: 'vulnerable', now: clock.now, fault: 'always_429' });
    const started = clock.now();

    const run = await runLlmscan(
      `${server.origin}/v1/chat/completions`,
      { families: ['prompt_injection'], max_requests: 60, rate: 10 },
      { clock, env: ONE_AT_A_TIME, timeoutSeconds: 30 },
    );

    expect(server.log.length).toBeLessThanOrEqual(60);
    expect(server.log.at(-1)!.at - started).toBeLessThanOrEqual(30_000);
    for (let i = 0; i + 1 < server.log.length; i += 1) expect(server.log[i + 1].at - server.log[i].at).toBeGreaterThanOrEqual(2000);
    expect(run.report?.status).toBe('error');
    const injection = run.report?.checks.filter((check) => check.id.startsWith('llm.prompt_injection.'));
    expect(injection?.map((check) => check.status)).toEqual(['error', 'error', 'error']);
    expect(injection?.[0].detail).toMatch(/HTTP 429/);
  });

  const hostile: [string, FakeModelOptions['fault'], Record<string, unknown>, RegExp][] = [
    ['answers 500 every time', 'always_500', {}, /HTTP 500/],
    ['answers 10 MB', 'huge', {}, /body exceeds 1048576 bytes/],
    ['answers invalid JSON', 'invalid_json', {}, /not JSON/],
    ['answers an invalid event stream', 'invalid_sse', { stream: true }, /not SSE|not a JSON object/],
    ['redirects to the metadata address', 'redirect', {}, /the endpoint redirected \(redirects are not followed\)/],
    ['streams forever', 'stream_forever', { stream: true }, /no complete response within 300 ms/],
  ];
  for (const [what, fault, scope, message] of hostile) {
    it(`makes error checks, never a pass, when the endpoint ${what}`, async () => {
      const server = await fake({ behaviour: 'vulnerable', fault });

      const run = await runLlmscan(
        `${server.origin}/v1/chat/completions`,
        { families: ['jailbreak'], repeats: 1, rate: 10, ...scope },
        { env: { LLMSCAN_REQUEST_TIMEOUT_SECONDS: fault === 'stream_forever' ? '0.3' : '20' } },
      );

      expect(run.code).toBe(0);
      expect(run.report?.status).toBe('error');
      const check = run.report?.checks.find((entry) => entry.id === 'llm.jailbreak.marker');
      expect(check?.status).toBe('error');
      expect(check?.detail).toMatch(message);
      expect(run.report?.findings).toEqual([]);
    });
  }

  it('makes error checks when response_path selects nothing', async () => {
    const server = await fake({ behaviour: 'vulnerable' });

    const run = await runLlmscan(`${server.origin}/app/chat`, {
      api: 'http_template',
      request_template: { input: { text: '{{prompt}}' } },
      response_path: 'result.text',
      families: ['jailbreak'],
      repeats: 1,
      rate: 10,
    });

    const check = run.report?.checks.find((entry) => entry.id === 'llm.jailbreak.marker');
    expect(check?.status).toBe('error');
    expect(check?.detail).toMatch(/response_path result\.text selects nothing/);
  });

  it('ends at the deadline with error checks when the endpoint never answers', async () => {
    const server = await fake({ behaviour: 'vulnerable', fault: 'hang' });
    const started = Date.now();

    const run = await runLlmscan(
      `${server.origin}/v1/chat/completions`,
      { families: ['jailbreak', 'endpoint'], rate: 10 },
      { clock: 'system', timeoutSeconds: 1 },
    );

    expect(Date.now() - started).toBeLessThan(5000);
    expect(run.report?.status).toBe('error');
    expect(Object.values(statuses(run.report)).filter((status) => status === 'pass' || status === 'fail')).toEqual([]);
  });
});

describe('llmscan refusals', () => {
  it('refuses the metadata address and, without the loopback switch, loopback', async () => {
    const metadata = await runLlmscan('http://169.254.169.254/v1/chat/completions', {});
    const loopback = await runLlmscan('http://127.0.0.1:9/v1/chat/completions', {}, { env: { LLMSCAN_ALLOW_LOOPBACK: '0' } });

    expect(metadata.code).toBe(3);
    expect(loopback.code).toBe(3);
    expect(loopback.stderr).toMatch(/refused/);
  });

  it('refuses a template without {{prompt}}', async () => {
    const template = await runLlmscan('http://127.0.0.1:9/app', {
      api: 'http_template',
      request_template: { q: 'hello' },
      response_path: 'a',
    });

    expect(template.code).toBe(2);
    expect(template.stderr).toMatch(/holds no \{\{prompt\}\}/);
  });
});

describe('llmscan with an llm_api_key credential', () => {
  const KEY = 'sk-live-4f1e9a7c2b6d8e0f';
  const credential = (hosts: string[]) => ({ alias: 'prod', kind: 'llm_api_key', secret: { token: KEY }, allowed_hosts: hosts });

  it('sends the key to an allowed host on every probe but the endpoint family, and never prints it', async () => {
    const server = await fake({ behaviour: 'vulnerable', apiKey: KEY, models: 'auth' });

    const run = await runLlmscan(
      `${server.origin}/v1/chat/completions`,
      { credential: 'prod', families: ['endpoint', 'jailbreak'], repeats: 1, rate: 10 },
      { credential: credential(['127.0.0.1']) },
    );

    expect(statuses(run.report)).toMatchObject({
      'llm.endpoint.unauthenticated': 'pass',
      'llm.endpoint.models_exposed': 'pass',
      'llm.jailbreak.marker': 'fail',
    });
    const sent = server.log.map((entry) => `${entry.path} ${entry.authorization ?? '-'}`);
    expect(sent.filter((line) => line.endsWith(`Bearer ${KEY}`))).toHaveLength(5);
    expect(sent.filter((line) => line.endsWith(' -'))).toHaveLength(2);
    expect(JSON.stringify(run.report)).not.toContain(KEY);
    expect(run.stderr).not.toContain(KEY);
  });

  it('sends nothing when the target host is not one the credential allows', async () => {
    const server = await fake({ behaviour: 'vulnerable', apiKey: KEY });

    const run = await runLlmscan(
      `${server.origin}/v1/chat/completions`,
      { credential: 'prod' },
      { credential: credential(['llm.example.com']) },
    );

    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/credential prod is not allowed for 127\.0\.0\.1: nothing was sent/);
    expect(run.stderr).not.toContain(KEY);
    expect(server.log).toEqual([]);
  });
});
