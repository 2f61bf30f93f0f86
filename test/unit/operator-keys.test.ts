import { GetSecretValueCommand, ResourceNotFoundException, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { runnerOf } from '../../shared/adapters/runners/engine-registry.ts';
import mailscan from '../../layers/mailscan/manifest.ts';
import { makeOperatorKeysLoader, parseOperatorKeys } from '../../shared/adapters/secrets/operator-keys.ts';
import type { Logger } from '../../shared/ports/logger.ts';

const SECRET = 'scan-service/dev/operator-keys';
const DQS = 'dqs-secret-value-0b7f3a';
const INTEL = 'intel-secret-value-9c1e55';

/** Every log call, as the JSON a log line would carry. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const record =
    (level: string) =>
    (message: string, ...extra: Record<string, unknown>[]) => {
      lines.push(JSON.stringify({ level, message, ...Object.assign({}, ...extra) }));
    };
  return { lines, debug: record('DEBUG'), info: record('INFO'), warn: record('WARN'), error: record('ERROR') };
}

describe('operator keys secret', () => {
  const secrets = mockClient(SecretsManagerClient);
  const client = secrets as unknown as SecretsManagerClient;
  beforeEach(() => secrets.reset());

  it('reads the MAILSCAN_*_KEY values once per cold start and logs only their names', async () => {
    secrets.on(GetSecretValueCommand, { SecretId: SECRET }).resolves({
      SecretString: JSON.stringify({ MAILSCAN_SPAMHAUS_DQS_KEY: DQS, MAILSCAN_THREATINTEL_KEY: INTEL }),
    });
    const logger = recordingLogger();
    const load = makeOperatorKeysLoader({ secretId: SECRET, logger, client });

    const [first, second] = await Promise.all([load(), load()]);
    const third = await load();

    expect(first).toEqual({ MAILSCAN_SPAMHAUS_DQS_KEY: DQS, MAILSCAN_THREATINTEL_KEY: INTEL });
    expect(second).toBe(first);
    expect(third).toBe(first);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(logger.lines.map((line) => JSON.parse(line))).toEqual([
      { level: 'INFO', message: 'operator keys loaded', names: ['MAILSCAN_SPAMHAUS_DQS_KEY', 'MAILSCAN_THREATINTEL_KEY'] },
    ]);
    expect(logger.lines.join('\n')).not.toContain(DQS);
  });

  it('skips the keys, and says so without the content, when the secret is not JSON', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: `MAILSCAN_SPAMHAUS_DQS_KEY=${DQS}` });
    const logger = recordingLogger();

    const keys = await makeOperatorKeysLoader({ secretId: SECRET, logger, client })();

    expect(keys).toEqual({});
    expect(logger.lines).toHaveLength(1);
    expect(JSON.parse(logger.lines[0])).toEqual({
      level: 'ERROR',
      message: 'operator keys secret is malformed; key-gated services are skipped',
      secret: SECRET,
      problem: 'the secret is not JSON',
    });
    expect(logger.lines.join('\n')).not.toContain(DQS);
  });

  it('refuses a secret whose key is not a string, naming the key but not the value', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify({ MAILSCAN_SPAMHAUS_DQS_KEY: { value: DQS } }) });
    const logger = recordingLogger();

    expect(await makeOperatorKeysLoader({ secretId: SECRET, logger, client })()).toEqual({});
    expect(JSON.parse(logger.lines[0]).problem).toBe('MAILSCAN_SPAMHAUS_DQS_KEY is not a string');
    expect(logger.lines.join('\n')).not.toContain(DQS);
  });

  it('skips the keys when the secret does not exist, and does not ask again', async () => {
    secrets.on(GetSecretValueCommand).rejects(new ResourceNotFoundException({ message: 'no such secret', $metadata: {} }));
    const logger = recordingLogger();
    const load = makeOperatorKeysLoader({ secretId: SECRET, logger, client });

    expect(await load()).toEqual({});
    expect(await load()).toEqual({});
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(JSON.parse(logger.lines[0]).message).toBe('operator keys secret not found; key-gated services are skipped');
  });

  it('tries again at the next scan after a read that failed for another reason', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejectsOnce(new Error('Rate exceeded'))
      .resolves({ SecretString: JSON.stringify({ MAILSCAN_SPAMHAUS_DQS_KEY: DQS }) });
    const load = makeOperatorKeysLoader({ secretId: SECRET, logger: recordingLogger(), client });

    expect(await load()).toEqual({});
    expect(await load()).toEqual({ MAILSCAN_SPAMHAUS_DQS_KEY: DQS });
  });

  it("ignores names that are not operator keys, so a secret cannot turn off the scanner's SSRF guard", () => {
    const parsed = parseOperatorKeys(
      JSON.stringify({
        MAILSCAN_SPAMHAUS_DQS_KEY: DQS,
        MAILSCAN_ALLOW_PRIVATE: '1',
        MAILSCAN_NAMESERVERS: '10.0.0.2',
        [`pasted ${INTEL}`]: 'x',
        MAILSCAN_EMPTY_KEY: '',
      }),
    );

    expect(parsed).toEqual({
      ok: true,
      keys: { MAILSCAN_SPAMHAUS_DQS_KEY: DQS },
      ignored: ['MAILSCAN_ALLOW_PRIVATE', 'MAILSCAN_NAMESERVERS', '(a name that is not a variable name)'],
    });
  });

  it('refuses JSON that is not an object', () => {
    expect(parseOperatorKeys('[]')).toEqual({ ok: false, problem: 'the secret is not a JSON object' });
    expect(parseOperatorKeys('null')).toEqual({ ok: false, problem: 'the secret is not a JSON object' });
    expect(parseOperatorKeys(`"${DQS}"`)).toEqual({ ok: false, problem: 'the secret is not a JSON object' });
  });
});

describe('mailscan runner with operator keys', () => {
  const dir = mkdtempSync(join(tmpdir(), 'operator-keys-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fakeCli = join(import.meta.dirname, '../fixtures/mailscan-fake/record-env.ts');

  it("passes the keys to the scanner's environment only: not the command line, this process or a log line", async () => {
    const envFile = join(dir, 'env.json');
    const logger = recordingLogger();
    const runner = runnerOf(mailscan, {
      bin: fakeCli,
      env: { PATH: process.env.PATH, MAILSCAN_TEST_ENV_FILE: envFile, AWS_SECRET_ACCESS_KEY: 'not-for-the-scanner' },
      operatorKeys: async () => ({ MAILSCAN_SPAMHAUS_DQS_KEY: DQS }),
    });

    const result = await runner.run({
      tenant: 'acme',
      scanType: 'email_security',
      target: 'example.com',
      scope: {},
      signal: new AbortController().signal,
      timeoutMs: 30_000,
      logger,
    });
    const seen = JSON.parse(readFileSync(envFile, 'utf8')) as { env: Record<string, string>; argv: string[] };

    expect(result.summary).toEqual({ score: 100, grade: 'A' });
    expect(seen.env.MAILSCAN_SPAMHAUS_DQS_KEY).toBe(DQS);
    expect(seen.env.AWS_SECRET_ACCESS_KEY).toBeUndefined();
    expect(seen.argv.join(' ')).not.toContain(DQS);
    expect(process.env.MAILSCAN_SPAMHAUS_DQS_KEY).toBeUndefined();
    expect(logger.lines.length).toBeGreaterThan(0);
    expect(logger.lines.join('\n')).not.toContain(DQS);
  });
});
