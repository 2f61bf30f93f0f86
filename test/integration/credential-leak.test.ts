import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildEngineOf } from '../../layers/build.ts';
import { LOCAL_TABLE_NAME } from '../../local/runtime.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import type { Logger } from '../../shared/ports/logger.ts';
import { gitAvailable, startGitServer, type GitServer } from '../helpers/git-http-server.ts';
import { startTestService, type TestService } from '../helpers/local-service.ts';
import { startWebhookReceiver } from '../helpers/webhook-receiver.ts';
import { tableClient } from '../security/store-state.ts';
import { checksummedToken } from '../../layers/secretscan/test/planted.ts';

/** A distinctive value no fixture or id could hold by chance. */
const planted = (prefix: string, length = 32) => `${prefix}${randomBytes(length).toString('hex').slice(0, length)}`;

/**
 * DESIGN §16, item 5 of issue 31: secrets of every kind are planted in the vault, then every path
 * a secret could leak through is exercised (creates, lists, gets, a rotation, scans that succeed,
 * fail and meet a cross-origin redirect, refused creates, the CSV export, events to a webhook and
 * to email, scan logs), and every response, log line, raw table item, scan log, outbox line,
 * webhook body and DATA_DIR file is searched for each secret and its base64: no hit.
 */
describe.skipIf(!gitAvailable())('no credential leaks', () => {
  let git: GitServer;
  let front: Server;
  let frontOrigin: string;
  let service: TestService;
  let work: string;
  let dataDir: string;
  const logLines: string[] = [];
  const responses: string[] = [];
  const serverToken = planted('glpat-srv');

  // One secret per kind (the git token is the one the repository accepts), plus a wrong token and a rotated one.
  const secrets = {
    git_token: { token: serverToken, username: 'deploy-bot' },
    git_token_wrong: { token: planted('ghp_wrong') },
    git_token_rotated_out: { token: planted('ghp_old') },
    http_header: { name: 'Cookie', value: `session=${planted('sess')}` },
    aws_access_key: { access_key_id: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`, secret_access_key: planted('aws/', 36) },
    github_token: { token: planted('ghp_') },
    gitlab_token: { token: planted('glpat-') },
    slack_token: { token: planted('xoxb-') },
    llm_api_key: { token: planted('sk-'), header: 'X-Api-Key' },
  };
  /** Every string that must not appear anywhere, with what it is. */
  const forbidden = (): [string, string][] => {
    const values: [string, string][] = [];
    for (const [name, secret] of Object.entries(secrets)) {
      for (const [field, value] of Object.entries(secret)) {
        if (field === 'name' || field === 'header' || field === 'username') continue;
        values.push([`${name}.${field}`, value]);
        values.push([`${name}.${field} (base64)`, Buffer.from(value).toString('base64')]);
        values.push([`${name}.${field} (base64url)`, Buffer.from(value).toString('base64url')]);
      }
    }
    const basic = Buffer.from(`deploy-bot:${serverToken}`).toString('base64');
    values.push(['git_token Basic auth', basic]);
    values.push(['git_token Basic auth (wrong)', Buffer.from(`x-access-token:${secrets.git_token_wrong.token}`).toString('base64')]);
    return values;
  };

  const recording: Logger = {
    debug: (message, ...extra) => logLines.push(JSON.stringify({ message, extra })),
    info: (message, ...extra) => logLines.push(JSON.stringify({ message, extra })),
    warn: (message, ...extra) => logLines.push(JSON.stringify({ message, extra })),
    error: (message, ...extra) =>
      logLines.push(
        JSON.stringify({ message, extra }, (_key, value) =>
          value instanceof Error ? `${value.name}: ${value.message} ${value.stack}` : value,
        ),
      ),
  };

  let runTmp: string;
  let previousTmp: string | undefined;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'credential-leak-'));
    dataDir = join(work, 'data');
    git = await startGitServer();
    const repo = await git.repository('acme/private', { token: serverToken });
    // A token with a valid checksum: secretscan verifies GitHub's CRC32 before a ghp_ token counts (issue 33).
    await repo.commit('config', { 'src/client.js': `export const auth = '${checksummedToken('ghp_')}';\n` });
    // Another origin (same host, other port) whose every answer redirects to the Git server.
    front = createServer((req, res) => res.writeHead(302, { location: `${git.origin}${req.url ?? '/'}` }).end());
    await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
    frontOrigin = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
    await buildEngineOf('secretscan', join(work, 'dist', 'bin', 'secretscan'));
    // The runner makes each run's folder under os.tmpdir(): a folder of this test's own, so what is
    // left there after the scans is this test's (process.env is this test file's worker's own).
    runTmp = join(work, 'tmp');
    await mkdir(runTmp);
    previousTmp = process.env.TMPDIR;
    process.env.TMPDIR = runTmp;
    const runners = makeEngineRunners({ binDir: join(work, 'dist', 'bin'), env: { PATH: process.env.PATH }, allowLoopback: true });
    service = await startTestService({
      allowLoopbackTargets: true,
      dataDir,
      logger: recording,
      runners: new Map([['secret_scan', runners.get('secret_scan')!]]),
    });
  }, 180_000);

  afterAll(async () => {
    if (previousTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = previousTmp;
    await service?.stop();
    await git?.close();
    await new Promise((resolve) => front?.close(resolve));
    await rm(work, { recursive: true, force: true });
  });

  it('plants a secret of every kind, runs every path, and finds none of them anywhere', async () => {
    const tenant = 'leak-tenant';
    const admin = await service.token(tenant, 'admin');
    const call = async (path: string, options: Parameters<TestService['call']>[1] = {}) => {
      const reply = await service.call(path, { token: admin, ...options });
      responses.push(JSON.stringify({ status: reply.status, headers: Object.fromEntries(reply.headers), body: reply.body }));
      return reply;
    };
    const webhook = await startWebhookReceiver();
    try {
      const rule = await call('/api/notifications/', {
        method: 'POST',
        body: {
          name: 'all',
          kind: 'webhook',
          url: webhook.url,
          events: ['scan.finished', 'issue.opened', 'issue.resolved', 'issue.reopened'],
        },
      });
      webhook.useSecret(rule.body.secret);
      await call('/api/notifications/', {
        method: 'POST',
        body: { name: 'mail', kind: 'email', address: 'sec@example.com', events: ['scan.finished', 'issue.opened'] },
      });

      // creates of every kind (the hosts: the Git server and the redirecting front are 127.0.0.1)
      const hostBound = { allowed_hosts: ['127.0.0.1'] };
      const creates = [
        { alias: 'git', kind: 'git_token', secret: secrets.git_token_rotated_out, ...hostBound },
        { alias: 'git-wrong', kind: 'git_token', secret: secrets.git_token_wrong, ...hostBound },
        { alias: 'cookie', kind: 'http_header', secret: secrets.http_header, ...hostBound },
        { alias: 'aws', kind: 'aws_access_key', secret: secrets.aws_access_key },
        { alias: 'gh', kind: 'github_token', secret: secrets.github_token },
        { alias: 'gl', kind: 'gitlab_token', secret: secrets.gitlab_token },
        { alias: 'slack', kind: 'slack_token', secret: secrets.slack_token },
        { alias: 'llm', kind: 'llm_api_key', secret: secrets.llm_api_key, ...hostBound },
      ];
      for (const body of creates) expect((await call('/api/credentials/', { method: 'POST', body })).status).toBe(201);
      // a conflict and a refused shape echo nothing
      expect((await call('/api/credentials/', { method: 'POST', body: creates[2] })).status).toBe(409);
      expect(
        (
          await call('/api/credentials/', {
            method: 'POST',
            body: { ...creates[1], secret: { token: `${secrets.git_token_wrong.token} x` } },
          })
        ).status,
      ).toBe(400);
      // rotation to the token the server accepts; lists and gets
      expect((await call('/api/credentials/git/', { method: 'PATCH', body: { secret: secrets.git_token } })).status).toBe(200);
      await call('/api/credentials/');
      for (const { alias } of creates) await call(`/api/credentials/${alias}/`);

      // refused creates: the exfiltration case, a wrong kind
      const target = `${git.origin}/acme/private.git`;
      expect(
        (
          await call('/api/scans/', {
            method: 'POST',
            body: { scan_type: 'secret_scan', target: 'https://their-server.example/x/y.git', scope: { credential: 'git' } },
          })
        ).status,
      ).toBe(400);
      expect(
        (await call('/api/scans/', { method: 'POST', body: { scan_type: 'secret_scan', target, scope: { credential: 'cookie' } } })).status,
      ).toBe(400);

      // scans: success, failure (a token the server refuses), and a redirect to another origin
      const scanOf = async (scanTarget: string, credential: string) => {
        const created = await call('/api/scans/', {
          method: 'POST',
          body: { scan_type: 'secret_scan', target: scanTarget, scope: { credential } },
        });
        expect(created.status).toBe(202);
        return created.body.id as string;
      };
      const ok = await scanOf(target, 'git');
      const refused = await scanOf(target, 'git-wrong');
      const redirected = await scanOf(`${frontOrigin}/acme/private.git`, 'git');
      await service.runtime.drain();
      await service.runtime.notifier.drain();
      const okScan = (await call(`/api/scans/${ok}/`)).body;
      expect(okScan).toMatchObject({ status: 'succeeded', errors: [] });
      expect((await call(`/api/findings/?scan_id=${ok}`)).body.items).toHaveLength(1);
      expect(JSON.stringify((await call(`/api/scans/${refused}/`)).body.errors)).toContain('the server refused the credential (HTTP 401)');
      expect(JSON.stringify((await call(`/api/scans/${redirected}/`)).body.errors)).toContain(
        'the credential is never sent across origins',
      );
      for (const id of [ok, refused, redirected]) await call(`/api/scans/${id}/log/`);
      expect((await call('/api/credentials/git/')).body.last_used_at).not.toBeNull();
      await call('/api/issues/');
      const csv = await fetch(`${service.runtime.url}/api/issues/export.csv`, { headers: { authorization: `Bearer ${admin}` } });
      expect(csv.status).toBe(200);
      responses.push(await csv.text());
      expect(webhook.accepted.size).toBeGreaterThan(0);

      // every place a secret could be
      const places: { where: string; text: string }[] = [];
      responses.forEach((text, index) => places.push({ where: `response ${index}`, text }));
      logLines.forEach((text, index) => places.push({ where: `log line ${index}`, text }));
      webhook.bodies.forEach((text, index) => places.push({ where: `webhook body ${index}`, text }));
      const client = tableClient(service.runtime);
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await client.send(new ScanCommand({ TableName: LOCAL_TABLE_NAME, ExclusiveStartKey: startKey }));
        for (const item of page.Items ?? [])
          places.push({ where: `item ${String(item.PK)} ${String(item.SK)}`, text: JSON.stringify(item) });
        startKey = page.LastEvaluatedKey;
      } while (startKey !== undefined);
      // Every file under DATA_DIR, bytes as latin1: dynalite's LevelDB files, the scan logs, the outbox, the key file.
      for (const name of await readdir(dataDir, { recursive: true })) {
        const bytes = await readFile(join(dataDir, name)).catch(() => null);
        if (bytes) places.push({ where: `file ${name}`, text: bytes.toString('latin1') });
      }
      expect(places.some((place) => place.where.startsWith('file outbox'))).toBe(true);
      expect(places.some((place) => place.where.startsWith('file logs/scans'))).toBe(true);
      expect(places.some((place) => place.where.includes('CRD#git'))).toBe(true);

      const hits = forbidden().flatMap(([what, value]) =>
        places.filter((place) => place.text.includes(value)).map((place) => `${what} in ${place.where}`),
      );
      console.log(
        `credential leak grep: ${Object.keys(secrets).length} secrets planted (${forbidden().length} strings with their encodings), ${places.length} places searched, ${hits.length} hits`,
      );
      expect(hits).toEqual([]);
      // Three engine runs had a credential (the runner logs its alias, never a path), each in a
      // folder of its own under the run folder's parent, and every folder is gone.
      const credentialRuns = logLines.filter((line) => line.includes('secretscan started') && line.includes('"credential":'));
      expect(credentialRuns).toHaveLength(3);
      expect(await readdir(runTmp)).toEqual([]);
    } finally {
      await webhook.close();
    }
  }, 180_000);
});
