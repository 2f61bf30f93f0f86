import { S3Client } from '@aws-sdk/client-s3';
import type { Context } from 'aws-lambda';
import { beforeEach, describe, expect, it } from 'vitest';
import { routes } from '../../functions/api/routes.ts';
import { makeScansHandler, type ScansHandlerDeps } from '../../functions/api/scans-handler.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { MIN_PART_BYTES, makeS3ExportStore, partsOf } from '../../shared/adapters/s3/s3-export-store.ts';
import { EXPORT_URL_TTL_SECONDS } from '../../shared/domain/export-file.ts';
import type { ApiEvent, StreamedApiResult } from '../../shared/http/api-types.ts';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { MAX_BUFFERED_BODY_BYTES } from '../../shared/http/response-stream.ts';
import type { ArtifactService } from '../../shared/services/artifact-service.ts';
import { makeIssueService } from '../../shared/services/issue-service.ts';
import type { ScanService } from '../../shared/services/scan-service.ts';
import { InMemoryFindingRepository } from '../fakes/in-memory-finding-repository.ts';
import { InMemoryIssueRepository } from '../fakes/in-memory-issue-repository.ts';
import { InMemorySlaRepository } from '../fakes/in-memory-sla-repository.ts';
import { InMemoryScanRepository } from '../fakes/in-memory-scan-repository.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { issueOf } from '../helpers/issue-records.ts';
import { verifyPresigned } from '../helpers/sigv4-verifying-front.ts';

// GET /api/issues/export.csv in AWS (docs/issues.md, "Export"): within one buffered answer the CSV
// itself; past it, the same CSV as an S3 multipart upload and 303 to a presigned GET. S3 is a
// recording fake behind a real S3Client, so the presigned URL is the SDK's own signature, checked
// by the SigV4 verifier the artifact tests use; nothing leaves the process.

const BUCKET = 'scan-service-test-artifacts';
const REGION = 'eu-west-1';
const CREDENTIALS = { accessKeyId: 'AKIDEXPORTTEST', secretAccessKey: 'export-test-secret' };
const TENANT = 'acme';
const FORMULAS = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)'];

type Json = Record<string, unknown>;
type Call = { command: string; input: Record<string, unknown> };

/** A real S3Client (it presigns) whose requests are recorded and answered here instead of sent. */
function recordingS3(failOn?: { part: number }) {
  const calls: Call[] = [];
  const parts = new Map<number, Buffer>();
  const client = new S3Client({ region: REGION, credentials: CREDENTIALS });
  client.send = async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const name = command.constructor.name.replace(/Command$/, '');
    const { Body, ...input } = command.input;
    calls.push({ command: name, input });
    switch (name) {
      case 'CreateMultipartUpload':
        return { UploadId: 'upload-1' };
      case 'UploadPart': {
        const number = input.PartNumber as number;
        if (failOn?.part === number) throw new Error('S3 went away');
        parts.set(number, Buffer.from(Body as Buffer));
        return { ETag: `"etag-${number}"` };
      }
      case 'CompleteMultipartUpload':
      case 'AbortMultipartUpload':
        return {};
      default:
        throw new Error(`unexpected ${name}`);
    }
  };
  return { client, calls, parts, names: () => calls.map(({ command }) => command) };
}

function exportEvent(query: Record<string, string> = {}): ApiEvent {
  return {
    version: '2.0',
    routeKey: 'GET /api/issues/export.csv',
    rawPath: '/api/issues/export.csv',
    rawQueryString: new URLSearchParams(query).toString(),
    queryStringParameters: query,
    headers: {},
    requestContext: {
      requestId: 'req-export',
      routeKey: 'GET /api/issues/export.csv',
      http: { method: 'GET', path: '/api/issues/export.csv', protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'test' },
      authorizer: {
        lambda: { sub: 'user-1', tenant: TENANT, role: 'viewer', via: 'bearer', expires_at: '2099-01-01T00:00:00.000Z', cursor_keys: 'k1' },
      },
    },
    isBase64Encoded: false,
  } as unknown as ApiEvent;
}

const context = {} as Context;

describe('the issue export in AWS (buffered answers, S3 past the limit)', () => {
  let repo: InMemoryIssueRepository;
  let deps: Omit<ScansHandlerDeps, 'exports'>;
  /** Which page read fails (1 = the first), if any. */
  let failingPage: number | undefined;

  beforeEach(() => {
    repo = new InMemoryIssueRepository();
    failingPage = undefined;
    let reads = 0;
    const list = repo.list.bind(repo);
    repo.list = async (...args) => {
      reads += 1;
      if (reads === failingPage) throw new Error('the store went away');
      return list(...args);
    };
    const issues = makeIssueService({
      issues: repo,
      findings: new InMemoryFindingRepository(),
      scans: new InMemoryScanRepository(),
      sla: new InMemorySlaRepository(),
      clock: new ManualClock('2026-06-01T00:00:00.000Z'),
      logger: silentLogger,
    });
    deps = { scans: {} as ScanService, artifacts: {} as ArtifactService, issues, logger: silentLogger, allowedOrigins: [] };
  });

  /** `count` issues with titles of about `titleBytes`, every fifth a formula a spreadsheet would run. */
  async function seed(count: number, titleBytes: number): Promise<void> {
    await repo.save(
      TENANT,
      Array.from({ length: count }, (_, n) => ({
        ...issueOf(TENANT, n, count),
        title: `${n % 5 === 0 ? FORMULAS[(n / 5) % FORMULAS.length] : 'issue'} ${n} ${'x'.repeat(titleBytes)}`,
      })),
    );
  }

  /** What npm start's streaming server sends for the same request. */
  async function streamedLocally(): Promise<string> {
    const result = (await makeScansHandler(deps, { streaming: true })(exportEvent(), context)) as StreamedApiResult;
    expect(result.statusCode).toBe(200);
    let text = '';
    for await (const chunk of result.stream ?? []) text += chunk;
    return text;
  }

  const awsHandler = (s3: ReturnType<typeof recordingS3>) =>
    makeScansHandler({ ...deps, exports: makeS3ExportStore(s3.client, BUCKET, makeUlidGenerator(), silentLogger) });

  it('answers an export within one buffered answer itself, and never touches S3', async () => {
    await seed(450, 100);
    const s3 = recordingS3();

    const result = (await awsHandler(s3)(exportEvent(), context)) as StreamedApiResult;

    expect(result.statusCode).toBe(200);
    expect(result.headers?.['content-type']).toBe('text/csv; charset=utf-8');
    expect(result.body).toBe(await streamedLocally());
    expect(s3.calls).toEqual([]);
  });

  it('writes a larger export as parts of at least 5 MiB that make exactly the CSV npm start streams, and answers 303 to a presigned GET', async () => {
    // 3,000 issues of about 4 KB: 15 pages, 12.5 MB, three parts.
    await seed(3_000, 4_000);
    const s3 = recordingS3();

    const result = (await awsHandler(s3)(exportEvent(), context)) as StreamedApiResult;

    expect(result.statusCode).toBe(303);
    expect(result.body).toBeUndefined();
    expect(s3.names()).toEqual(['CreateMultipartUpload', 'UploadPart', 'UploadPart', 'UploadPart', 'CompleteMultipartUpload']);
    const [create, ...rest] = s3.calls;
    const key = create.input.Key as string;
    expect(key).toMatch(/^_exports\/acme\/exp_[0-9A-HJKMNP-TV-Z]{26}\.csv$/);
    expect(create.input).toEqual({
      Bucket: BUCKET,
      Key: key,
      ContentType: 'text/csv; charset=utf-8',
      ContentDisposition: 'attachment; filename="issues.csv"',
    });
    for (const call of rest) expect(call.input).toMatchObject({ Bucket: BUCKET, Key: key, UploadId: 'upload-1' });
    expect(rest.at(-1)?.input.MultipartUpload).toEqual({
      Parts: [1, 2, 3].map((n) => ({ PartNumber: n, ETag: `"etag-${n}"` })),
    });

    const parts = [1, 2, 3].map((n) => s3.parts.get(n) as Buffer);
    for (const part of parts.slice(0, -1)) expect(part.length).toBeGreaterThanOrEqual(MIN_PART_BYTES);
    const file = Buffer.concat(parts).toString('utf8');
    expect(Buffer.byteLength(file)).toBeGreaterThan(MAX_BUFFERED_BODY_BYTES);
    expect(file).toBe(await streamedLocally());
    const lines = file.trimEnd().split('\r\n');
    expect(lines).toHaveLength(3_001);
    expect(new Set(lines.slice(1).map((line) => line.split(',')[0])).size).toBe(3_000);
    for (const formula of FORMULAS) {
      const cell = `'${formula}`;
      expect(file).toContain(cell.includes('"') ? `"${cell.replaceAll('"', '""')}` : cell);
    }
    expect(file).not.toMatch(/,[=+\-@]/);

    const location = new URL(result.headers?.location as string);
    expect(location.origin).toBe(`https://${BUCKET}.s3.${REGION}.amazonaws.com`);
    expect(decodeURIComponent(location.pathname)).toBe(`/${key}`);
    expect(location.searchParams.get('X-Amz-Expires')).toBe(String(EXPORT_URL_TTL_SECONDS));
    const signed = (method: string, at: Date) =>
      verifyPresigned(
        { method, url: `${location.pathname}${location.search}`, headers: { host: location.host } },
        { [CREDENTIALS.accessKeyId]: CREDENTIALS.secretAccessKey },
        at,
      );
    expect(signed('GET', new Date())).toBeNull();
    expect(signed('PUT', new Date())).toMatchObject({ code: 'SignatureDoesNotMatch' });
    expect(signed('GET', new Date(Date.now() + (EXPORT_URL_TTL_SECONDS + 60) * 1000))).toMatchObject({ status: 403 });
  });

  it.each([
    ['S3 refuses a part', { part: 2 }, undefined],
    ['the store fails on a later page', undefined, 12],
  ])('aborts the upload and answers an error when %s, offering no file', async (_, failOn, page) => {
    await seed(3_000, 4_000);
    failingPage = page;
    const s3 = recordingS3(failOn);

    const result = (await awsHandler(s3)(exportEvent(), context)) as StreamedApiResult;

    expect(result.statusCode).toBe(500);
    expect(result.headers?.location).toBeUndefined();
    expect(s3.names()).not.toContain('CompleteMultipartUpload');
    expect(s3.names().at(-1)).toBe('AbortMultipartUpload');
    expect(s3.calls.at(-1)?.input).toEqual({ Bucket: BUCKET, Key: s3.calls[0].input.Key, UploadId: 'upload-1' });
  });
});

describe('the export in the OpenAPI document', () => {
  it('lists 303 with its Location beside 200 and the errors', () => {
    const paths = buildOpenApiDocument('test', routes).paths as Record<string, Record<string, { responses: Record<string, Json> }>>;
    const { responses } = paths['/api/issues/export.csv'].get;
    expect(Object.keys(responses)).toEqual(['200', '303', '400', '401', '403', '413']);
    expect(responses['303']).toMatchObject({
      description: expect.stringMatching(/presigned URL/),
      headers: { Location: { required: true } },
    });
  });
});

describe('partsOf (upload parts from CSV chunks)', () => {
  async function* chunks(...values: string[]): AsyncGenerator<string> {
    yield* values;
  }
  const collect = async (parts: AsyncIterable<Buffer>) => {
    const made: string[] = [];
    for await (const part of parts) made.push(part.toString('utf8'));
    return made;
  };

  it('makes parts of whole chunks, each at least the minimum but the last, counting UTF-8 bytes', async () => {
    // 'éé' is two characters and four bytes.
    expect(await collect(partsOf(chunks('ab', 'cd', 'éé', 'f', 'g'), 4))).toEqual(['abcd', 'éé', 'fg']);
  });

  it('makes one empty part of an empty stream, so the upload still completes', async () => {
    expect(await collect(partsOf(chunks(), 4))).toEqual(['']);
  });
});
