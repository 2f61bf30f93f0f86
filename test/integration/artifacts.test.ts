import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runnerOf } from '../../shared/adapters/runners/engine-registry.ts';
import mailscan from '../../layers/mailscan/manifest.ts';
import { deflatedZeros, zipOf } from '../../layers/mailscan/test/helpers/archives.ts';
import { buildCli } from '../../layers/mailscan/test/helpers/cli.ts';
import { startDnsServer, type TestDnsServer } from '../../layers/mailscan/test/helpers/dns-server.ts';
import { zoneDir } from '../../layers/mailscan/test/helpers/fixtures.ts';
import { putUpload } from '../helpers/artifact-upload.ts';
import { freshTenant, scheduleBody, snapshot, startTestService, type TestService } from '../helpers/local-service.ts';

const fixture = (path: string) => readFileSync(fileURLToPath(new URL(`../fixtures/mailscan/${path}`, import.meta.url)));
const REPORT = fixture('rua/google.xml');
const MESSAGE = fixture('header/received-anomalies.eml');

describe('artifacts through the local server', () => {
  let dns: TestDnsServer;
  let service: TestService;
  let tenant: string;
  let operator: string;

  /** Announces a file and PUTs it to the URL the API gave; returns the artifact as the API then shows it. */
  async function upload(bytes: Buffer, announce: Record<string, unknown>, token = operator) {
    const created = await service.call('/api/artifacts/', {
      method: 'POST',
      token,
      body: { filename: 'file', size: bytes.length, ...announce },
    });
    expect(created.status).toBe(201);
    const put = await putUpload(created.body.upload.url, created.body.upload.headers, bytes);
    const artifact = (await service.call(`/api/artifacts/${created.body.id}/`, { token })).body;
    return { created: created.body, put, artifact };
  }

  beforeAll(async () => {
    // Target validation wants a public suffix: good.test's zone is served as goodmail.com.
    const text = readFileSync(join(zoneDir, 'good.test.zone'), 'utf8').replaceAll('good.test', 'goodmail.com');
    dns = await startDnsServer({ zones: [{ text, origin: 'goodmail.com' }] });
    const bin = await buildCli();
    const env = { PATH: process.env.PATH, MAILSCAN_NAMESERVERS: dns.address, MAILSCAN_ALLOW_LOOPBACK: '1' };
    service = await startTestService({
      runners: ({ artifacts }) => new Map([['email_security', runnerOf(mailscan, { bin, env, artifacts })]]),
    });
  });
  beforeEach(async () => {
    tenant = freshTenant('acme');
    operator = await service.token(tenant, 'operator');
  });
  afterAll(async () => {
    await service.stop();
    await dns.close();
  });

  it('announces a report, takes its bytes once at the signed URL, and marks it ready', async () => {
    const { created, put, artifact } = await upload(REPORT, { purpose: 'rua', filename: 'google.xml', content_type: 'application/xml' });

    expect(created).toMatchObject({
      id: expect.stringMatching(/^art_[0-9A-Z]{26}$/),
      status: 'pending',
      purpose: 'rua',
      size: REPORT.length,
      expires_at: '2026-04-01T10:00:00.000Z',
      upload: {
        method: 'PUT',
        headers: { 'content-type': 'application/xml', 'content-length': String(REPORT.length) },
        expires_at: '2026-03-02T10:15:00.000Z',
      },
    });
    expect(put.status).toBe(200);
    expect(artifact).toMatchObject({ status: 'ready', reason: null, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(artifact).not.toHaveProperty('upload');
    expect((await putUpload(created.upload.url, created.upload.headers, REPORT)).status).toBe(403);
  });

  it('refuses a PUT with another length or content type, or a forged or expired token, and stores nothing', async () => {
    const created = (
      await service.call('/api/artifacts/', {
        method: 'POST',
        token: operator,
        body: { purpose: 'rua', filename: 'r.xml', size: REPORT.length, content_type: 'application/xml' },
      })
    ).body;
    const { url, headers } = created.upload;

    const answers = [
      await putUpload(url, { ...headers, 'content-type': 'application/zip' }, REPORT),
      await putUpload(url, { ...headers, 'content-length': String(REPORT.length - 1) }, REPORT.subarray(1)),
      await putUpload(url.replace(/token=[^.]+/, 'token=eyJ0ZW5hbnQiOiJiZXRhIn0'), headers, REPORT),
    ];
    service.clock.advance(16 * 60 * 1000);
    answers.push(await putUpload(url, headers, REPORT));

    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403]);
    expect(JSON.parse(answers[3].text)).toMatchObject({ error: { code: 'request_expired' } });
    expect((await service.call(`/api/artifacts/${created.id}/`, { token: operator })).body).toMatchObject({
      status: 'pending',
      sha256: null,
    });
    expect(await service.runtime.artifactStore.read(tenant, created.id, 1024)).toBeNull();
  });

  it('rejects with a reason a zip bomb, a non-XML report and a file that is not a message', async () => {
    const bomb = zipOf([{ name: 'report.xml', deflated: deflatedZeros(200) }]);
    const [zip, text, eml] = await Promise.all([
      upload(bomb, { purpose: 'rua', filename: 'bomb.zip', content_type: 'application/zip' }),
      upload(Buffer.from('just text, not XML'), { purpose: 'rua', filename: 'notes.xml', content_type: 'text/xml' }),
      upload(Buffer.from('%PDF-1.7\n'), { purpose: 'eml', filename: 'mail.eml', content_type: 'message/rfc822' }),
    ]);

    expect(zip.artifact).toMatchObject({ status: 'rejected', reason: expect.stringContaining('decompresses to more than') });
    expect(text.artifact).toMatchObject({ status: 'rejected', reason: 'notes.xml: not XML' });
    expect(eml.artifact).toMatchObject({ status: 'rejected', reason: expect.stringContaining('not an RFC 5322 message') });
    expect(await service.runtime.artifactStore.read(tenant, zip.created.id, 1024)).toBeNull();
  });

  it('refuses announcements over the size limit or of the wrong content type (400 on the field)', async () => {
    const tooBig = await service.call('/api/artifacts/', {
      method: 'POST',
      token: operator,
      body: { purpose: 'eml', filename: 'big.eml', size: 60 * 1024 * 1024, content_type: 'message/rfc822' },
    });
    const wrongType = await service.call('/api/artifacts/', {
      method: 'POST',
      token: operator,
      body: { purpose: 'rua', filename: 'r.pdf', size: 10, content_type: 'application/pdf' },
    });
    const viewer = await service.call('/api/artifacts/', {
      method: 'POST',
      token: await service.token(tenant, 'viewer'),
      body: { purpose: 'rua', filename: 'r.xml', size: 10, content_type: 'text/xml' },
    });

    expect(tooBig).toMatchObject({
      status: 400,
      body: { error: { details: [{ field: 'size', message: 'must be at most 52428800 bytes for purpose eml' }] } },
    });
    expect(wrongType.body.error.details).toEqual([expect.objectContaining({ field: 'content_type' })]);
    expect(viewer.status).toBe(403);
  });

  it("keeps tenants apart: another tenant's artifact is 404 to read and 400 in a scope", async () => {
    const beta = await service.token(freshTenant('beta'), 'operator');
    const { created } = await upload(REPORT, { purpose: 'rua', filename: 'b.xml', content_type: 'application/xml' }, beta);

    const read = await service.call(`/api/artifacts/${created.id}/`, { token: operator });
    const scan = await service.call('/api/scans/', {
      method: 'POST',
      token: operator,
      body: { scan_type: 'email_security', target: 'goodmail.com', scope: { rua: [created.id] } },
    });

    expect(read.status).toBe(404);
    expect(scan).toMatchObject({
      status: 400,
      body: { error: { details: [{ field: 'scope.rua.0', message: `artifact ${created.id} not found` }] } },
    });
    expect(await service.runtime.artifactStore.read(tenant, created.id, 1024)).toBeNull();
  });

  it('refuses a scope naming a pending artifact or one of the wrong purpose', async () => {
    const pending = (
      await service.call('/api/artifacts/', {
        method: 'POST',
        token: operator,
        body: { purpose: 'rua', filename: 'p.xml', size: 10, content_type: 'text/xml' },
      })
    ).body;
    const { created: report } = await upload(REPORT, { purpose: 'rua', filename: 'g.xml', content_type: 'application/xml' });

    const scan = await service.call('/api/scans/', {
      method: 'POST',
      token: operator,
      body: { scan_type: 'email_security', target: 'goodmail.com', scope: { rua: [pending.id], header: report.id } },
    });
    const malformed = await service.call('/api/scans/', {
      method: 'POST',
      token: operator,
      body: { scan_type: 'email_security', target: 'goodmail.com', scope: { header: '--config=/etc/passwd' } },
    });

    expect(scan.status).toBe(400);
    expect(scan.body.error.details).toEqual([
      { field: 'scope.rua.0', message: `artifact ${pending.id} is pending, not ready` },
      { field: 'scope.header', message: `artifact ${report.id} has purpose rua, not eml` },
    ]);
    expect(malformed.body.error.details).toEqual([expect.objectContaining({ field: 'scope.header' })]);
  });

  it("keeps a schedule's rua and header to ready artifacts of the tenant, and fires with them", async () => {
    const admin = await service.token(tenant, 'admin');
    const beta = await service.token(freshTenant('beta'), 'operator');
    const { created: theirs } = await upload(REPORT, { purpose: 'rua', filename: 'b.xml', content_type: 'application/xml' }, beta);
    const pending = (
      await service.call('/api/artifacts/', {
        method: 'POST',
        token: operator,
        body: { purpose: 'eml', filename: 'p.eml', size: 10, content_type: 'message/rfc822' },
      })
    ).body;
    const yahoo = gzipSync(
      fixture('rua/yahoo.xml').toString().replaceAll('good.test', 'goodmail.com').replaceAll('GOOD.TEST', 'GOODMAIL.COM'),
    );
    const { created: report } = await upload(yahoo, { purpose: 'rua', filename: 'yahoo.xml.gz', content_type: 'application/gzip' });
    const schedules = (body: Record<string, unknown>, method = 'POST', path = '/api/scans/schedules/') =>
      service.call(path, { method, token: admin, body });
    const empty = await snapshot(service.runtime, tenant);

    const foreign = await schedules(scheduleBody({ target: 'goodmail.com', scope: { rua: [report.id, theirs.id] } }));
    const notReady = await schedules(scheduleBody({ target: 'goodmail.com', scope: { header: pending.id } }));
    const afterRefusals = await snapshot(service.runtime, tenant);
    const created = await schedules(scheduleBody({ target: 'goodmail.com', scope: { reputation: false, rua: [report.id] } }));
    const stored = await snapshot(service.runtime, tenant);
    const badPatch = await schedules(
      { scope: { reputation: false, rua: [theirs.id] } },
      'PATCH',
      `/api/scans/schedules/${created.body.id}/`,
    );
    const afterBadPatch = await snapshot(service.runtime, tenant);
    const renamed = await schedules({ name: 'Reports' }, 'PATCH', `/api/scans/schedules/${created.body.id}/`);
    const run = await service.call(`/api/scans/schedules/${created.body.id}/run/`, { method: 'POST', token: admin });
    await service.runtime.drain();
    const findings = (await service.call(`/api/findings/?scan_id=${run.body.scan.id}&limit=200`, { token: operator })).body.items as {
      rule_id: string;
    }[];

    expect(foreign).toMatchObject({
      status: 400,
      body: { error: { details: [{ field: 'scope.rua.1', message: `artifact ${theirs.id} not found` }] } },
    });
    expect(notReady).toMatchObject({
      status: 400,
      body: { error: { details: [{ field: 'scope.header', message: `artifact ${pending.id} is pending, not ready` }] } },
    });
    expect(afterRefusals).toBe(empty);
    expect(created).toMatchObject({ status: 201, body: { scope: { rua: [report.id] } } });
    expect(badPatch).toMatchObject({
      status: 400,
      body: { error: { details: [{ field: 'scope.rua.0', message: `artifact ${theirs.id} not found` }] } },
    });
    expect(afterBadPatch).toBe(stored);
    expect(renamed).toMatchObject({ status: 200, body: { name: 'Reports', scope: { rua: [report.id] } } });
    expect(run.status).toBe(202);
    expect(findings.map((item) => item.rule_id)).toContain('mailscan.dmarc.rua_misalignment');
  });

  it('scans with rua and header scope end to end: upload, scan, findings', async () => {
    const yahoo = gzipSync(
      fixture('rua/yahoo.xml').toString().replaceAll('good.test', 'goodmail.com').replaceAll('GOOD.TEST', 'GOODMAIL.COM'),
    );
    const { created: report } = await upload(yahoo, { purpose: 'rua', filename: 'yahoo.xml.gz', content_type: 'application/gzip' });
    const { created: message } = await upload(MESSAGE, { purpose: 'eml', filename: 'suspicious.eml', content_type: 'message/rfc822' });

    const queued = await service.call('/api/scans/', {
      method: 'POST',
      token: operator,
      body: { scan_type: 'email_security', target: 'goodmail.com', scope: { reputation: false, rua: [report.id], header: message.id } },
    });
    await service.runtime.drain();
    const scan = (await service.call(`/api/scans/${queued.body.id}/`, { token: operator })).body;
    const findings = (await service.call(`/api/findings/?scan_id=${queued.body.id}&limit=200`, { token: operator })).body.items as {
      rule_id: string;
      severity: string;
      evidence: Record<string, unknown>;
    }[];

    expect(queued.status).toBe(202);
    expect(scan).toMatchObject({ status: 'succeeded', errors: [] });
    expect(findings.filter((item) => item.rule_id === 'mailscan.dmarc.rua_misalignment')).toEqual([
      expect.objectContaining({ severity: 'high', evidence: expect.objectContaining({ source_ip: '203.0.113.9', dmarc_fail: 150 }) }),
    ]);
    expect(
      findings
        .filter((item) => item.rule_id === 'mailscan.header.received_anomaly')
        .map((item) => item.evidence.kind)
        .sort(),
    ).toEqual(['backwards_time', 'long_delay', 'loopback_helo', 'missing_date', 'private_helo']);
  });
});
