import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeS3ArtifactStore } from '../../shared/adapters/s3/s3-artifact-store.ts';
import { makeS3Client } from '../../shared/adapters/s3/s3-client.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { makeArtifactService, type ArtifactService } from '../../shared/services/artifact-service.ts';
import { InMemoryArtifactRepository } from '../fakes/in-memory-artifact-repository.ts';
import { putUpload } from '../helpers/artifact-upload.ts';
import { startSigV4Front, verifyPresigned, type SigV4Front } from '../helpers/sigv4-verifying-front.ts';
import { deflatedZeros, zipOf } from '../../layers/mailscan/test/helpers/archives.ts';

const REPORT = readFileSync(new URL('../fixtures/mailscan/rua/google.xml', import.meta.url));
const MIB = 1024 * 1024;

describe('S3 artifact store against s3rver, with real presigned URLs checked by a SigV4-verifying front', () => {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  let server: S3rver;
  let front: SigV4Front;
  let client: S3Client;
  let artifacts: ArtifactService;
  const store = () => makeS3ArtifactStore(client, 'artifacts');

  beforeAll(async () => {
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: 'artifacts' }] });
    const { port } = await server.run();
    // s3rver does not verify presigned signatures: the front does, as S3 would, then forwards.
    front = await startSigV4Front({ target: `http://127.0.0.1:${port}`, secrets: { S3RVER: 'S3RVER' } });
    client = makeS3Client({
      endpoint: front.url,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    // Real time: s3rver checks the presigned URL's expiry against its own clock.
    artifacts = makeArtifactService({
      repo: new InMemoryArtifactRepository(),
      store: store(),
      ids: makeUlidGenerator(),
      clock: { now: () => new Date() },
      logger: silentLogger,
    });
  });
  afterAll(async () => {
    client?.destroy();
    await front?.close();
    await server?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  /** The Google-shaped report announced for acme: the request every presigned-URL test starts from. */
  const announceReport = () =>
    artifacts.create('acme', { purpose: 'rua', filename: 'google.xml', size: REPORT.length, content_type: 'application/xml' });

  it('stores what is PUT to the presigned URL under <tenant>/<id> and marks it ready', async () => {
    const created = await announceReport();

    const put = await putUpload(created.upload.url, created.upload.headers, REPORT);
    const checked = await artifacts.check('acme', created.id);

    expect(created.upload.url).toContain(`/artifacts/acme/${created.id}?`);
    expect(created.upload.url).toMatch(/X-Amz-Expires=900/);
    expect(created.upload.url).toMatch(/X-Amz-SignedHeaders=content-length%3Bcontent-type%3Bhost/);
    // No request checksum: the SDK's default bakes the CRC32 of the empty body into the URL.
    expect(created.upload.url).not.toMatch(/checksum/i);
    expect(put.status).toBe(200);
    expect(front.seen.at(-1)).toEqual({ method: 'PUT', path: `/artifacts/acme/${created.id}`, refusal: null });
    expect(checked).toMatchObject({ status: 'ready', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(await store().read('acme', created.id, REPORT.length)).toEqual(REPORT);
  });

  it("writes a document the service made (a scan's SBOM) under <tenant>/<id>, out of another tenant's reach", async () => {
    const id = makeUlidGenerator().newId('art');
    const document = Buffer.from(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.6', components: [] }));

    await store().write('acme', id, document, 'application/vnd.cyclonedx+json');

    expect(await store().read('acme', id, document.length)).toEqual(document);
    expect(await store().read('globex', id, document.length)).toBeNull();
  });

  it('refuses a PUT with another Content-Length or Content-Type (SignatureDoesNotMatch), and stores nothing', async () => {
    const created = await announceReport();
    const { url, headers } = created.upload;

    const shorter = await putUpload(url, { ...headers, 'content-length': String(REPORT.length - 1) }, REPORT.subarray(1));
    const longer = await putUpload(
      url,
      { ...headers, 'content-length': String(REPORT.length + 5) },
      Buffer.concat([REPORT, Buffer.from('extra')]),
    );
    const otherType = await putUpload(url, { ...headers, 'content-type': 'application/zip' }, REPORT);

    for (const answer of [shorter, longer, otherType]) {
      expect(answer.status).toBe(403);
      expect(answer.text).toContain('<Code>SignatureDoesNotMatch</Code>');
    }
    expect(await store().read('acme', created.id, 10)).toBeNull();
    // The URL itself is good: the exact declared request is accepted afterwards.
    expect((await putUpload(url, headers, REPORT)).status).toBe(200);
  });

  it('refuses an expired URL', async () => {
    const id = 'art_01JZZZZZZZZZZZZZZZZZZZZZZZ';
    const issued = await store().uploadInstructions(
      { tenant: 'acme', id, size: REPORT.length, contentType: 'application/xml' },
      new Date(Date.now() - 16 * 60 * 1000),
    );

    const answer = await putUpload(issued.url, issued.headers, REPORT);

    expect(answer.status).toBe(403);
    expect(answer.text).toContain('<Code>AccessDenied</Code><Message>Request has expired</Message>');
    expect(await store().read('acme', id, 10)).toBeNull();
  });

  it('is not a rubber stamp: a tampered query, key or signature, and an unsigned PUT, are refused', async () => {
    const created = await announceReport();
    const { url, headers } = created.upload;
    const signature = new URL(url).searchParams.get('X-Amz-Signature')!;
    const flipped = `${signature.slice(0, -1)}${signature.endsWith('0') ? '1' : '0'}`;

    const answers = await Promise.all([
      putUpload(url.replace('X-Amz-Expires=900', 'X-Amz-Expires=3600'), headers, REPORT),
      putUpload(url.replace(`/acme/${created.id}`, `/beta/${created.id}`), headers, REPORT),
      putUpload(url.replace(signature, flipped), headers, REPORT),
      putUpload(url.split('?')[0], headers, REPORT),
    ]);

    expect(answers.map((answer) => [answer.status, /<Code>(\w+)<\/Code>/.exec(answer.text)?.[1]])).toEqual([
      [403, 'SignatureDoesNotMatch'],
      [403, 'SignatureDoesNotMatch'],
      [403, 'SignatureDoesNotMatch'],
      [403, 'AccessDenied'],
    ]);
    expect(await store().read('acme', created.id, 10)).toBeNull();
    expect(await store().read('beta', created.id, 10)).toBeNull();
  });

  it("verifies SigV4 as AWS documents it: the S3 guide's presigned URL example is accepted, and refused once altered", () => {
    // "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)", Amazon S3 API reference.
    const example = {
      method: 'GET',
      url: '/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
      headers: { host: 'examplebucket.s3.amazonaws.com' },
    };
    const secrets = { AKIAIOSFODNN7EXAMPLE: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
    const during = new Date('2013-05-24T12:00:00Z');

    expect(verifyPresigned(example, secrets, during)).toBeNull();
    expect(verifyPresigned({ ...example, method: 'PUT' }, secrets, during)?.code).toBe('SignatureDoesNotMatch');
    expect(verifyPresigned({ ...example, headers: { host: 'otherbucket.s3.amazonaws.com' } }, secrets, during)?.code).toBe(
      'SignatureDoesNotMatch',
    );
    expect(verifyPresigned({ ...example, url: example.url.replace('/test.txt', '/test.txu') }, secrets, during)?.code).toBe(
      'SignatureDoesNotMatch',
    );
    expect(verifyPresigned(example, { AKIAIOSFODNN7EXAMPLE: 'another secret' }, during)?.code).toBe('SignatureDoesNotMatch');
    expect(verifyPresigned(example, secrets, new Date('2013-05-25T00:00:01Z'))?.code).toBe('AccessDenied');
  });

  it('rejects with a reason a zip bomb, a non-XML report and a 60 MiB message', async () => {
    const bomb = zipOf([{ name: 'report.xml', deflated: deflatedZeros(200) }]);
    const text = Buffer.from('plain words');
    const zip = await artifacts.create('acme', {
      purpose: 'rua',
      filename: 'bomb.zip',
      size: bomb.length,
      content_type: 'application/zip',
    });
    const notXml = await artifacts.create('acme', {
      purpose: 'rua',
      filename: 'notes.xml',
      size: text.length,
      content_type: 'application/xml',
    });
    const eml = await artifacts.create('acme', { purpose: 'eml', filename: 'huge.eml', size: 50 * MIB, content_type: 'message/rfc822' });
    await putUpload(zip.upload.url, zip.upload.headers, bomb);
    await putUpload(notXml.upload.url, notXml.upload.headers, text);
    // Bigger than any upload URL allows: as if it reached the bucket by another way.
    await client.send(
      new PutObjectCommand({
        Bucket: 'artifacts',
        Key: `acme/${eml.id}`,
        Body: Buffer.alloc(60 * MIB, 0x61),
        ContentType: 'message/rfc822',
      }),
    );

    const results = await Promise.all([zip, notXml, eml].map((created) => artifacts.check('acme', created.id)));

    expect(results.map((result) => [result?.status, result?.reason])).toEqual([
      ['rejected', expect.stringContaining('decompresses to more than')],
      ['rejected', 'notes.xml: not XML'],
      ['rejected', `${50 * MIB + 1} bytes or more, over the ${50 * MIB}-byte limit for eml`],
    ]);
    expect(await store().read('acme', eml.id, 10)).toBeNull();
  });

  it("cannot reach another tenant's object: the key is built from the tenant asked for", async () => {
    const created = await artifacts.create('acme', {
      purpose: 'rua',
      filename: 'g.xml',
      size: REPORT.length,
      content_type: 'application/xml',
    });
    await putUpload(created.upload.url, created.upload.headers, REPORT);

    expect(await store().read('beta', created.id, 1024)).toBeNull();
    await expect(store().fetchTo('beta', created.id, join(directory, 'stolen'))).rejects.toThrow();
    await expect(store().read('../acme', created.id, 1024)).rejects.toThrow('invalid artifact key');
    expect(await store().read('acme', created.id, REPORT.length)).toEqual(REPORT);
  });
});
