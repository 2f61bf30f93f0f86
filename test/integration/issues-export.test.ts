import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ISSUE_CSV_COLUMNS } from '../../shared/domain/issue-csv.ts';
import { freshTenant, startTestService, type TestService } from '../helpers/local-service.ts';
import { issueOf } from '../helpers/issue-records.ts';

// GET /api/issues/export.csv on npm start's server: every page, in listing order, streamed at the
// reader's pace (docs/issues.md, "Export").

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const MB = 1024 * 1024;

/** Heap in use after a full collection: what the process holds, not what it has yet to collect. */
function retainedHeap(): number {
  gc();
  return process.memoryUsage().heapUsed;
}

async function seed(service: TestService, tenant: string, count: number, titleBytes = 0): Promise<void> {
  const long = (n: number) => (titleBytes ? { title: `issue ${n} ${'x'.repeat(titleBytes)}` } : {});
  for (let start = 0; start < count; start += 1000)
    await service.runtime.issues.save(
      tenant,
      Array.from({ length: Math.min(1000, count - start) }, (_, i) => ({
        ...issueOf(tenant, start + i, count),
        ...long(start + i),
      })),
    );
}

/** Every id of the listing, page after page through the API. */
async function listedIds(service: TestService, token: string, query = ''): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const reply = await service.call(`/api/issues/?limit=200${query}${cursor ? `&cursor=${cursor}` : ''}`, { token });
    ids.push(...reply.body.items.map((issue: { id: string }) => issue.id));
    cursor = reply.body.next_cursor;
  } while (cursor !== null);
  return ids;
}

const exportUrl = (service: TestService, query = '') => `${service.runtime.url}/api/issues/export.csv${query}`;
const idsOf = (csv: string) =>
  csv
    .trimEnd()
    .split('\r\n')
    .slice(1)
    .map((line) => line.split(',')[0].replaceAll('"', ''));

describe('the issue export, streamed by the local server', () => {
  let service: TestService;
  /** Which issue reads fail: every one, or those that continue a listing (a page after the first). */
  let failing: 'none' | 'every read' | 'later pages' = 'none';

  beforeAll(async () => {
    service = await startTestService({
      afterDynamoCall: (command, input) => {
        if (command !== 'QueryCommand' || failing === 'none') return;
        if (failing === 'every read' || (input as { ExclusiveStartKey?: unknown }).ExclusiveStartKey !== undefined)
          throw new Error('the store went away');
      },
    });
  });
  afterAll(() => service.stop());

  it('sends every page, in the listing order, with and without a filter', async () => {
    const tenant = freshTenant('export');
    const token = await service.token(tenant, 'viewer');
    await seed(service, tenant, 1_250);

    const all = await fetch(exportUrl(service), { headers: { authorization: `Bearer ${token}` } });
    const text = await all.text();
    const open = await (await fetch(exportUrl(service, '?status=open'), { headers: { authorization: `Bearer ${token}` } })).text();

    expect(all.status).toBe(200);
    expect(all.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(all.headers.get('content-length')).toBeNull();
    expect(text.split('\r\n')[0]).toBe(ISSUE_CSV_COLUMNS.map((column) => `"${column}"`).join(','));
    expect(idsOf(text)).toHaveLength(1_250);
    expect(idsOf(text)).toEqual(await listedIds(service, token));
    expect(idsOf(open)).toEqual(await listedIds(service, token, '&status=open'));
    expect(idsOf(open).length).toBeGreaterThan(200);
  });

  it('answers a failure before the first page with its error status, and breaks the transfer after it', async () => {
    const tenant = freshTenant('export-fails');
    const token = await service.token(tenant, 'viewer');
    await seed(service, tenant, 450);

    failing = 'every read';
    const early = await fetch(exportUrl(service), { headers: { authorization: `Bearer ${token}` } });
    const earlyBody = (await early.json()) as { error: { code: string } };
    failing = 'later pages';
    const late = await fetch(exportUrl(service), { headers: { authorization: `Bearer ${token}` } });
    const lateBody = late.text();
    await expect(lateBody).rejects.toThrow();
    failing = 'none';

    expect(early.status).toBe(500);
    expect(earlyBody.error.code).toBe('internal_error');
    expect(late.status).toBe(200);
  });

  it('holds a page or two while it streams 5,000 issues (a 6 MB file), not the file', async () => {
    const tenant = freshTenant('export-big');
    const token = await service.token(tenant, 'viewer');
    // Long titles make a file of export size from fewer items: seeding dynalite is the test's cost,
    // and what the server holds is a page of rows whatever their count.
    await seed(service, tenant, 5_000, 1_000);
    const baseline = retainedHeap();
    const rss = process.memoryUsage().rss;
    let peakRss = rss;
    let reads = 0;

    const response = await fetch(exportUrl(service), { headers: { authorization: `Bearer ${token}` } });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let bytes = 0;
    let rows = 0;
    let peak = -Infinity;
    let low = Infinity;
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      bytes += read.value.byteLength;
      reads += 1;
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      rows += decoder.decode(read.value, { stream: true }).split('\r\n').length - 1;
      const retained = retainedHeap() - baseline;
      peak = Math.max(peak, retained);
      low = Math.min(low, retained);
    }

    console.log(
      `export of 5,000 issues: ${(bytes / MB).toFixed(2)} MB streamed in ${reads} reads; retained heap against the ` +
        `${(baseline / MB).toFixed(1)} MB before it, sampled after a full collection at each read: ` +
        `${(low / MB).toFixed(2)} to ${(peak / MB).toFixed(2)} MB; RSS ${(rss / MB).toFixed(0)} MB before, at most ${(peakRss / MB).toFixed(0)} MB during`,
    );
    expect(rows).toBe(5_001);
    // Built in memory, the body alone was the file's size (one byte a character here); streamed, a
    // page of records and its chunk (about 1 MB at most in the runs measured, docs/issues.md).
    expect(peak).toBeLessThan(bytes / 2);
  }, 300_000);
});

describe('the issue export answered whole, as API Gateway and Lambda answer it', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService({ bufferResponses: true });
  });
  afterAll(() => service.stop());

  it('is the same file, every page in the listing order', async () => {
    const tenant = freshTenant('export-buffered');
    const token = await service.token(tenant, 'viewer');
    await seed(service, tenant, 450);

    const response = await fetch(exportUrl(service), { headers: { authorization: `Bearer ${token}` } });
    const text = await response.text();

    expect(response.status).toBe(200);
    expect(idsOf(text)).toEqual(await listedIds(service, token));
  });
});
