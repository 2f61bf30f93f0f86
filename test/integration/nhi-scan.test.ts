import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { awsAccountOn, SELF_READ, type AccessKey, type AwsAccount } from '../../layers/nhiscan/test/helpers/aws-account.ts';
import { makeEngineRunners } from '../../shared/adapters/runners/engine-registry.ts';
import { cachedEngineBuild } from '../helpers/engine-build-cache.ts';
import { gitAvailable, startGitServer, type GitServer } from '../helpers/git-http-server.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { startMotoServer, type MotoServer } from '../helpers/moto-server.ts';

const MINUTE = 60_000;

/**
 * DESIGN §20 through the local runtime (as under `ALLOW_LOOPBACK_TARGETS=true npm start`), with the
 * real secretscan and nhiscan executables, a repository on git http-backend and moto_server with
 * IAM enforcement: a secret scan of the repository finds an AWS key; a scheduled nhi scan of the
 * vault entry holding that key reports it leaked in the same tenant, and in another tenant (same
 * key, no secret scan there) it does not.
 */
describe.skipIf(!gitAvailable())('nhi scans through the local runtime', () => {
  let service: TestService;
  let git: GitServer;
  let moto: MotoServer;
  let account: AwsAccount;
  let key: AccessKey;

  beforeAll(async () => {
    [git, moto] = await Promise.all([startGitServer(), startMotoServer()]);
    account = await awsAccountOn(moto);
    key = await account.createUser('ci', { inline: { read: SELF_READ } });
    const [secretscan, nhiscan] = await Promise.all([cachedEngineBuild('secretscan'), cachedEngineBuild('nhiscan')]);
    const env = { PATH: process.env.PATH, NHISCAN_AWS_ENDPOINT: moto.endpoint };
    const secretRunners = makeEngineRunners({ binDir: dirname(secretscan), env, allowLoopback: true });
    const nhiRunners = makeEngineRunners({ binDir: dirname(nhiscan), env, allowLoopback: true });
    service = await startTestService({
      allowLoopbackTargets: true,
      runners: new Map([
        ['secret_scan', secretRunners.get('secret_scan')!],
        ['nhi', nhiRunners.get('nhi')!],
      ]),
    });
  }, 180_000);
  afterAll(async () => {
    account?.iam.destroy();
    await service?.stop();
    await Promise.all([git?.close(), moto?.close()]);
  });

  const vault = async (tenant: string) => {
    const admin = await service.token(tenant, 'admin');
    const created = await service.call('/api/credentials/', {
      method: 'POST',
      token: admin,
      body: { alias: 'ci-key', kind: 'aws_access_key', secret: key },
    });
    expect(created.status).toBe(201);
    return admin;
  };
  const checksOf = async (token: string, scanId: string) => {
    const scan = (await service.call(`/api/scans/${scanId}/`, { token })).body as {
      status: string;
      checks: { id: string; status: string; detail: string }[];
    };
    return { scan, status: Object.fromEntries(scan.checks.map((check) => [check.id, check.status])) };
  };

  it('reports a key a secret scan found in the same tenant as leaked, on a schedule, and not in another tenant', async () => {
    const tenant = freshTenant('nhi');
    const other = freshTenant('nhi-other');
    const admin = await vault(tenant);
    const otherAdmin = await vault(other);
    const repo = await git.repository(`acme/${tenant}`);
    await repo.commit('deploy settings', {
      'deploy.env': `AWS_ACCESS_KEY_ID=${key.access_key_id}\nAWS_SECRET_ACCESS_KEY=${key.secret_access_key}\n`,
    });

    // act: the secret scan of the repository (tenant only), then the scheduled nhi scan of the alias
    const secretScan = await service.call('/api/scans/', {
      method: 'POST',
      token: admin,
      body: { scan_type: 'secret_scan', target: `${git.origin}/acme/${tenant}.git` },
    });
    expect(secretScan.status).toBe(202);
    await service.runtime.drain();
    const schedule = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token: admin,
      body: {
        name: 'CI key review',
        scan_type: 'nhi',
        target: 'ci-key',
        cadence: 'custom',
        cron_expression: '*/5 * * * *',
        scope: { max_key_age_days: 30 },
      },
    });
    expect(schedule.status).toBe(201);
    service.clock.advance(5 * MINUTE);
    await service.runtime.drain();
    const fired = (await service.call(`/api/scans/schedules/${schedule.body.id}/`, { token: admin })).body.last_scan_id as string;
    const elsewhere = await service.call('/api/scans/', {
      method: 'POST',
      token: otherAdmin,
      body: { scan_type: 'nhi', target: 'ci-key' },
    });
    await service.runtime.drain();

    // assert: the secret scan saw the key; the fired nhi scan calls it leaked; the other tenant's does not
    const secrets = (await service.call(`/api/findings/?scan_id=${secretScan.body.id}`, { token: admin })).body.items as {
      rule_id: string;
    }[];
    expect(secrets.map((finding) => finding.rule_id)).toEqual(expect.arrayContaining([expect.stringMatching(/^secret\.aws_access_key/)]));
    const mine = await checksOf(admin, fired);
    expect(mine.scan.status).toBe('succeeded');
    expect(mine.status['nhi.exposure.leaked']).toBe('fail');
    expect(mine.status['nhi.credential.invalid']).toBe('pass');
    const leaked = (await service.call('/api/issues/?rule_id=nhi.exposure.leaked', { token: admin })).body.items as {
      target: string;
      severity: string;
    }[];
    expect(leaked).toMatchObject([{ target: 'ci-key', severity: 'critical' }]);
    const theirs = await checksOf(otherAdmin, elsewhere.body.id as string);
    expect(theirs.status['nhi.exposure.leaked']).toBe('pass');
    expect((await service.call('/api/issues/?rule_id=nhi.exposure.leaked', { token: otherAdmin })).body.items).toEqual([]);
  });

  it('refuses an nhi target that is no nhi credential of the tenant, with 400 on target', async () => {
    const tenant = freshTenant('nhi-refused');
    const admin = await service.token(tenant, 'admin');
    await service.call('/api/credentials/', {
      method: 'POST',
      token: admin,
      body: { alias: 'git-bot', kind: 'git_token', secret: { token: 'glpat-abcdefabcdefabcdef' }, allowed_hosts: ['git.example.com'] },
    });
    const otherTenant = freshTenant('nhi-owner');
    await vault(otherTenant);

    const replies = await Promise.all(
      ['missing', 'git-bot', 'ci-key'].map((target) =>
        service.call('/api/scans/', { method: 'POST', token: admin, body: { scan_type: 'nhi', target } }),
      ),
    );

    expect(replies.map((reply) => reply.status)).toEqual([400, 400, 400]);
    expect(replies.map((reply) => JSON.stringify(reply.body))).toEqual([
      expect.stringMatching(/"target".*credential missing not found/),
      expect.stringMatching(/"target".*credential git-bot is a git_token/),
      expect.stringMatching(/"target".*credential ci-key not found/),
    ]);
  });
});
