import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TABLE_NAME } from '../../local/runtime.ts';
import { makeCredentialOpener } from '../../shared/services/credential-opener.ts';
import { makeLocalKeyWrapper } from '../../shared/adapters/local/local-key-wrapper.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { storeState, tableClient } from '../security/store-state.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** /api/credentials/ and scope.credential through the local runtime (DESIGN §16). */
describe('the tenant credential vault', () => {
  let service: TestService;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'credentials-api-'));
    service = await startTestService({ allowLoopbackTargets: true, dataDir });
  });
  afterAll(async () => {
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  const gitToken = (overrides: Record<string, unknown> = {}) => ({
    alias: 'ci-bot',
    kind: 'git_token',
    secret: { token: 'ghp_vaultApiPlanted0000000000000000000001' },
    allowed_hosts: ['git.example.com'],
    ...overrides,
  });

  it('creates, lists, gets, rotates and deletes a credential, never answering its secret', async () => {
    const tenant = freshTenant('vault');
    const admin = await service.token(tenant, 'admin');
    const created = await service.call('/api/credentials/', { method: 'POST', token: admin, body: gitToken({ description: 'CI' }) });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/credentials/ci-bot/');
    expect(created.body).toEqual({
      alias: 'ci-bot',
      kind: 'git_token',
      allowed_hosts: ['git.example.com'],
      description: 'CI',
      // sha256("ghp_vaultApiPlanted0000000000000000000001"), first 8 hex
      fingerprint: expect.stringMatching(/^[0-9a-f]{8}$/),
      created_at: '2026-03-02T10:00:00.000Z',
      updated_at: '2026-03-02T10:00:00.000Z',
      last_used_at: null,
    });
    const operator = await service.token(tenant, 'operator');
    expect((await service.call('/api/credentials/', { token: operator })).body.items).toEqual([created.body]);
    expect((await service.call('/api/credentials/ci-bot/', { token: operator })).body).toEqual(created.body);

    const rotated = await service.call('/api/credentials/ci-bot/', {
      method: 'PATCH',
      token: admin,
      body: { secret: { token: 'ghp_vaultApiRotated0000000000000000000002' }, allowed_hosts: ['*.example.com'] },
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.fingerprint).not.toBe(created.body.fingerprint);
    expect(rotated.body.allowed_hosts).toEqual(['*.example.com']);
    expect(JSON.stringify([created.body, rotated.body])).not.toMatch(/ghp_vaultApi/);

    expect((await service.call('/api/credentials/ci-bot/', { method: 'DELETE', token: admin })).status).toBe(204);
    expect((await service.call('/api/credentials/ci-bot/', { token: admin })).status).toBe(404);
  });

  it('gives writes to admins only, and reads to operators too', async () => {
    const tenant = freshTenant('vault');
    const operator = await service.token(tenant, 'operator');
    const viewer = await service.token(tenant, 'viewer');
    expect((await service.call('/api/credentials/', { method: 'POST', token: operator, body: gitToken() })).status).toBe(403);
    expect((await service.call('/api/credentials/', { token: viewer })).status).toBe(403);
    expect((await service.call('/api/credentials/', { token: operator })).status).toBe(200);
  });

  it('answers 409 for an alias that exists', async () => {
    const admin = await service.token(freshTenant('vault'), 'admin');
    await service.call('/api/credentials/', { method: 'POST', token: admin, body: gitToken() });
    const again = await service.call('/api/credentials/', { method: 'POST', token: admin, body: gitToken() });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  it('refuses bad input with 400 on the field, storing nothing', async () => {
    const tenant = freshTenant('vault');
    const admin = await service.token(tenant, 'admin');
    const client = tableClient(service.runtime);
    const before = await storeState(service.runtime, client);
    const cases: [Record<string, unknown>, string][] = [
      [gitToken({ alias: 'CI Bot' }), 'alias'],
      [gitToken({ alias: '-ci' }), 'alias'],
      [gitToken({ kind: 'ssh_key' }), 'kind'],
      [gitToken({ secret: { token: 'has a space' } }), 'secret.token'],
      [gitToken({ secret: { token: 'tok', password: 'x' } }), 'secret.password'],
      [gitToken({ secret: {} }), 'secret.token'],
      [gitToken({ kind: 'http_header', secret: { name: 'Cookie', value: 'a=b\r\nX-Injected: 1' } }), 'secret.value'],
      [
        gitToken({ kind: 'aws_access_key', secret: { access_key_id: 'AKIA0000', secret_access_key: 'x' }, allowed_hosts: undefined }),
        'secret.access_key_id',
      ],
      [gitToken({ secret: { token: 'x'.repeat(60_000) } }), 'secret.token'],
      [gitToken({ allowed_hosts: ['https://git.example.com'] }), 'allowed_hosts.0'],
      [gitToken({ allowed_hosts: ['git.example.com/acme'] }), 'allowed_hosts.0'],
      [gitToken({ allowed_hosts: ['*'] }), 'allowed_hosts.0'],
      [gitToken({ allowed_hosts: ['ok.example.com', '169.254.169.254'] }), 'allowed_hosts.1'],
      [gitToken({ allowed_hosts: ['10.0.0.5'] }), 'allowed_hosts.0'],
      [gitToken({ allowed_hosts: [] }), 'allowed_hosts'],
      [gitToken({ allowed_hosts: undefined }), 'allowed_hosts'],
      [gitToken({ kind: 'github_token', allowed_hosts: ['api.github.com'] }), 'allowed_hosts'],
      [gitToken({ fingerprint: 'deadbeef' }), 'fingerprint'],
    ];
    for (const [body, field] of cases) {
      const reply = await service.call('/api/credentials/', { method: 'POST', token: admin, body });
      expect(
        [reply.status, reply.body.error.details.map((detail: { field: string }) => detail.field)],
        JSON.stringify(body).slice(0, 200),
      ).toEqual([400, expect.arrayContaining([field])]);
      expect(JSON.stringify(reply.body)).not.toContain('x'.repeat(100));
    }
    // A 1 MB secret is over the API's 64 KiB body limit (DESIGN §3): refused before it is parsed.
    const huge = await service.call('/api/credentials/', {
      method: 'POST',
      token: admin,
      body: gitToken({ secret: { token: 'x'.repeat(1 << 20) } }),
    });
    expect([huge.status, huge.body.error.code]).toEqual([413, 'payload_too_large']);
    expect(await storeState(service.runtime, client)).toEqual(before);
  });

  it("keeps tenants apart: B cannot read, rotate, delete, use or reference A's alias", async () => {
    const a = freshTenant('vault-a');
    const b = freshTenant('vault-b');
    const adminA = await service.token(a, 'admin');
    const adminB = await service.token(b, 'admin');
    expect(
      (await service.call('/api/credentials/', { method: 'POST', token: adminA, body: gitToken({ allowed_hosts: ['127.0.0.1'] }) })).status,
    ).toBe(201);
    const table = [
      ['GET', await service.call('/api/credentials/ci-bot/', { token: adminB })],
      ['PATCH', await service.call('/api/credentials/ci-bot/', { method: 'PATCH', token: adminB, body: { description: 'mine' } })],
      ['DELETE', await service.call('/api/credentials/ci-bot/', { method: 'DELETE', token: adminB })],
    ].map(([method, reply]) => [method, (reply as { status: number }).status]);
    expect(table).toEqual([
      ['GET', 404],
      ['PATCH', 404],
      ['DELETE', 404],
    ]);
    expect((await service.call('/api/credentials/', { token: adminB })).body.items).toEqual([]);
    const scan = await service.call('/api/scans/', {
      method: 'POST',
      token: adminB,
      body: { scan_type: 'secret_scan', target: 'http://127.0.0.1:9/acme/app.git', scope: { credential: 'ci-bot' } },
    });
    expect([scan.status, scan.body.error.details]).toEqual([400, [{ field: 'scope.credential', message: 'credential ci-bot not found' }]]);
    const schedule = await service.call('/api/scans/schedules/', {
      method: 'POST',
      token: adminB,
      body: {
        name: 'x',
        scan_type: 'secret_scan',
        target: 'http://127.0.0.1:9/acme/app.git',
        cadence: 'daily',
        scope: { credential: 'ci-bot' },
      },
    });
    expect([schedule.status, schedule.body.error.details]).toEqual([
      400,
      [{ field: 'scope.credential', message: 'credential ci-bot not found' }],
    ]);
    // A's item is untouched.
    expect((await service.call('/api/credentials/ci-bot/', { token: adminA })).body.description).toBeNull();
  });

  it("does not open A's sealed secret copied into B's item", async () => {
    const a = freshTenant('vault-a');
    const b = freshTenant('vault-b');
    await service.call('/api/credentials/', { method: 'POST', token: await service.token(a, 'admin'), body: gitToken() });
    const client = tableClient(service.runtime);
    const { Item } = await client.send(new GetCommand({ TableName: LOCAL_TABLE_NAME, Key: { PK: `T#${a}`, SK: 'CRD#ci-bot' } }));
    await client.send(new PutCommand({ TableName: LOCAL_TABLE_NAME, Item: { ...Item, PK: `T#${b}`, tenant: b } }));
    const opener = makeCredentialOpener({
      repo: service.runtime.credentialRepo,
      wrapper: await makeLocalKeyWrapper(dataDir),
      clock: service.clock,
    });
    await expect(opener.open(a, 'ci-bot')).resolves.toMatchObject({ alias: 'ci-bot', kind: 'git_token' });
    await expect(opener.open(b, 'ci-bot')).rejects.toThrow('credential ci-bot could not be decrypted');
  });

  it('refuses a scan whose credential is of the wrong kind or not bound to the target host (the exfiltration case), storing nothing', async () => {
    const tenant = freshTenant('vault');
    const admin = await service.token(tenant, 'admin');
    await service.call('/api/credentials/', { method: 'POST', token: admin, body: gitToken() });
    await service.call('/api/credentials/', {
      method: 'POST',
      token: admin,
      body: {
        alias: 'web-cookie',
        kind: 'http_header',
        secret: { name: 'Cookie', value: 'session=planted' },
        allowed_hosts: ['git.example.com'],
      },
    });
    const client = tableClient(service.runtime);
    const before = await storeState(service.runtime, client);
    const operator = await service.token(tenant, 'operator');
    const create = (target: string, credential: string) =>
      service.call('/api/scans/', { method: 'POST', token: operator, body: { scan_type: 'secret_scan', target, scope: { credential } } });
    const exfiltration = await create('https://their-server.example/someone/x.git', 'ci-bot');
    expect([exfiltration.status, exfiltration.body.error.details]).toEqual([
      400,
      [{ field: 'target', message: 'host their-server.example is not in the allowed_hosts of credential ci-bot' }],
    ]);
    const wrongKind = await create('https://git.example.com/acme/app.git', 'web-cookie');
    expect([wrongKind.status, wrongKind.body.error.details]).toEqual([
      400,
      [{ field: 'scope.credential', message: 'credential web-cookie is a http_header; a secret_scan scan takes git_token' }],
    ]);
    const notAnAlias = await create('https://git.example.com/acme/app.git', 'ghp_notAnAlias');
    expect(notAnAlias.status).toBe(400);
    const otherType = await service.call('/api/scans/', {
      method: 'POST',
      token: operator,
      body: { scan_type: 'ssl', target: 'git.example.com', scope: { credential: 'ci-bot' } },
    });
    expect(otherType.status).toBe(400);
    expect(await storeState(service.runtime, client)).toEqual(before);
    // The same scan on an allowed host is accepted.
    expect((await create('https://git.example.com/acme/app.git', 'ci-bot')).status).toBe(202);
  });

  it('lists the routes in the OpenAPI document', async () => {
    const { body } = await service.call('/api/openapi.json');
    expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(['/api/credentials/', '/api/credentials/{id}/']));
    expect(Object.keys(body.paths['/api/credentials/{id}/']).sort()).toEqual(['delete', 'get', 'patch']);
  });
});
