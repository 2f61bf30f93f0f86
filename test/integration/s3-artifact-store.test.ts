import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeS3ArtifactStore } from '../../shared/adapters/s3/s3-artifact-store.ts';
import { makeS3Client } from '../../shared/adapters/s3/s3-client.ts';
import type { ArtifactRecord } from '../../shared/domain/artifact.ts';
import type { ArtifactRepository } from '../../shared/ports/artifact-repository.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { silentLogger } from '../../shared/ports/logger.ts';
import { makeArtifactService, type ArtifactService } from '../../shared/services/artifact-service.ts';
import { putUpload } from '../helpers/artifact-upload.ts';
import { deflatedZeros, zipOf } from '../mailscan/helpers/archives.ts';

const REPORT = readFileSync(new URL('../fixtures/mailscan/rua/google.xml', import.meta.url));
const MIB = 1024 * 1024;

/** Artifact rows in memory, with the repository's conditional settle. */
function memoryRepository(): ArtifactRepository {
  const rows = new Map<string, ArtifactRecord>();
  return {
    async create(record) { rows.set(`${record.tenant}/${record.id}`, { ...record }); },
    async get(tenant, id) { return rows.get(`${tenant}/${id}`) ?? null; },
    async settle(tenant, id, outcome) {
      const row = rows.get(`${tenant}/${id}`);
      if (!row || row.status !== 'pending') return null;
      Object.assign(row, outcome);
      return { ...row };
    },
  };
}

describe('S3 artifact store against s3rver, with real presigned URLs', () => {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  let server: S3rver;
  let client: S3Client;
  let artifacts: ArtifactService;
  const store = () => makeS3ArtifactStore(client, 'artifacts');

  beforeAll(async () => {
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: 'artifacts' }] });
    const { port } = await server.run();
    client = makeS3Client({ endpoint: `http://127.0.0.1:${port}`, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    // Real time: s3rver checks the presigned URL's expiry against its own clock.
    artifacts = makeArtifactService({ repo: memoryRepository(), store: store(), ids: makeUlidGenerator(), clock: { now: () => new Date() }, logger: silentLogger });
  });
  afterAll(async () => {
    client?.destroy();
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('stores what is PUT to the presigned URL under <tenant>/<id> and marks it ready', async () => {
    const created = await artifacts.create('acme', { purpose: 'rua', filename: 'google.xml', size: REPORT.length, content_type: 'application/xml' });

    const put = await putUpload(created.upload.url, created.upload.headers, REPORT);
    const checked = await artifacts.check('acme', created.id);

    expect(created.upload.url).toContain(`/artifacts/acme/${created.id}?`);
    expect(created.upload.url).toMatch(/X-Amz-Expires=900/);
    expect(created.upload.url).toMatch(/X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost/);
    expect(put.status).toBe(200);
    expect(checked).toMatchObject({ status: 'ready', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  // Not shown here: s3rver 3.7 accepts a presigned PUT whatever its signature, length or content
  // type (it does not verify query-string SigV4), so the refusal of another length or type rests on
  // the URL signing both headers (asserted above) and on S3; the local upload endpoint enforces it
  // and test/integration/artifacts.test.ts shows that.

  it('rejects with a reason a zip bomb, a non-XML report and a 60 MiB message', async () => {
    const bomb = zipOf([{ name: 'report.xml', deflated: deflatedZeros(200) }]);
    const text = Buffer.from('plain words');
    const zip = await artifacts.create('acme', { purpose: 'rua', filename: 'bomb.zip', size: bomb.length, content_type: 'application/zip' });
    const notXml = await artifacts.create('acme', { purpose: 'rua', filename: 'notes.xml', size: text.length, content_type: 'application/xml' });
    const eml = await artifacts.create('acme', { purpose: 'eml', filename: 'huge.eml', size: 50 * MIB, content_type: 'message/rfc822' });
    await putUpload(zip.upload.url, zip.upload.headers, bomb);
    await putUpload(notXml.upload.url, notXml.upload.headers, text);
    // Bigger than any upload URL allows: as if it reached the bucket by another way.
    await client.send(new PutObjectCommand({ Bucket: 'artifacts', Key: `acme/${eml.id}`, Body: Buffer.alloc(60 * MIB, 0x61), ContentType: 'message/rfc822' }));

    const results = await Promise.all([zip, notXml, eml].map((created) => artifacts.check('acme', created.id)));

    expect(results.map((result) => [result?.status, result?.reason])).toEqual([
      ['rejected', expect.stringContaining('decompresses to more than')],
      ['rejected', 'notes.xml: not XML'],
      ['rejected', `${50 * MIB + 1} bytes or more, over the ${50 * MIB}-byte limit for eml`],
    ]);
    expect(await store().read('acme', eml.id, 10)).toBeNull();
  });

  it('cannot reach another tenant\'s object: the key is built from the tenant asked for', async () => {
    const created = await artifacts.create('acme', { purpose: 'rua', filename: 'g.xml', size: REPORT.length, content_type: 'application/xml' });
    await putUpload(created.upload.url, created.upload.headers, REPORT);

    expect(await store().read('beta', created.id, 1024)).toBeNull();
    await expect(store().fetchTo('beta', created.id, join(directory, 'stolen'))).rejects.toThrow();
    await expect(store().read('../acme', created.id, 1024)).rejects.toThrow('invalid artifact key');
    expect(await store().read('acme', created.id, REPORT.length)).toEqual(REPORT);
  });
});
