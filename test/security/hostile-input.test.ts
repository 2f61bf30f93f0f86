import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../shared/http/openapi.ts';
import { routes } from '../../functions/api/routes.ts';
import { desiredTrigger } from '../../shared/domain/trigger.ts';
import { SESSION_KEY, scheduleBody, startTestService, type TestService } from '../helpers/local-service.ts';
import { UPLOAD_STATUS_BY_CODE, errorBodyProblem, leaks } from './error-body.ts';
import { UPLOAD_PATH, everyRoute, hostileRequests, resolveToken, type Fixture, type HostileRequest } from './hostile-requests.ts';
import { rawRequest, type RawReply } from './raw-client.ts';
import { storeState, tableClient } from './store-state.ts';

// The hostile-input suite (issue 11 item 9): at least 2,000 generated requests against every
// endpoint of the local runtime per run. HOSTILE_SEED replays a run; HOSTILE_REQUESTS sizes it.
const SEED = Number(process.env.HOSTILE_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.HOSTILE_REQUESTS ?? 2400);
/** Requests in flight at once; the store is compared before and after each batch. */
const BATCH = 24;

let service: TestService;
let client: DynamoDBDocumentClient;
let fixture: Fixture;

const send = (request: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer }) =>
  rawRequest(service.runtime.url, request);
const state = () => storeState(service.runtime, client);

/**
 * The local-only endpoints, which the OpenAPI document does not describe: the admin endpoints
 * (docs/hostile-input.md) and the upload stand-in, which answers any method (docs/artifacts.md).
 */
const LOCAL_DOCUMENTED: Record<string, number[]> = {
  'POST /_local/reconcile': [200, 400, 401, 415],
  'POST /_local/backfill': [200, 400, 401, 415],
  [`* ${UPLOAD_PATH}`]: [200, 400, 403, 405, 411],
};

/** The statuses the OpenAPI document lists for the route a request lands on; 404 for no route. */
function documentedStatuses(): (method: string, path: string) => Set<number> {
  const paths = buildOpenApiDocument('test', routes).paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
  const compiled = Object.entries(paths)
    .map(([template, operations]) => ({
      pattern: new RegExp(`^${template.replace(/\/$/, '').replace(/\{\w+\}/g, '[^/]+')}/?$`),
      literal: !template.includes('{'),
      operations,
    }))
    .sort((a, b) => Number(b.literal) - Number(a.literal));
  return (method, path) => {
    const raw = path.split('?')[0];
    const local = LOCAL_DOCUMENTED[`${method} ${raw}`] ?? LOCAL_DOCUMENTED[`* ${raw}`];
    if (local) return new Set([...local, 404]);
    const route = compiled.find((candidate) => candidate.pattern.test(path.split('?')[0]) && candidate.operations[method.toLowerCase()]);
    const statuses = route ? Object.keys(route.operations[method.toLowerCase()].responses).map(Number) : [];
    return new Set([...statuses, 404]);
  };
}

interface Totals {
  requests: number;
  byStatus: Record<string, number>;
  byFamily: Record<string, number>;
  serverErrors: number;
  leaks: number;
  storedOn4xx: number;
  problems: string[];
}

function describeRequest(request: HostileRequest): string {
  const body = request.body === undefined ? '' : ` body=${JSON.stringify(String(request.body).slice(0, 160))}`;
  return `[${request.family}] ${request.method} ${request.path.slice(0, 160)}${body}`;
}

/** Checks one answer against its request's expectation; returns what is wrong, or nothing. */
function check(request: HostileRequest, reply: RawReply, documented: Set<number>): string[] {
  const problems: string[] = [];
  if (reply.status !== request.expect.status)
    problems.push(`status ${reply.status}, expected ${request.expect.status}: ${reply.text.slice(0, 300)}`);
  if (!documented.has(request.expect.status)) problems.push(`status ${request.expect.status} is not documented for this route`);
  if (request.method !== 'HEAD' && reply.status >= 400) {
    const bodyProblem = errorBodyProblem(reply, request.path.split('?')[0] === UPLOAD_PATH ? UPLOAD_STATUS_BY_CODE : undefined);
    if (bodyProblem) problems.push(`error body: ${bodyProblem}: ${reply.text.slice(0, 200)}`);
    else {
      if (request.expect.code && reply.json.error.code !== request.expect.code)
        problems.push(`code ${reply.json.error.code}, expected ${request.expect.code}: ${reply.json.error.message}`);
      const fields = (reply.json.error.details as { field: string }[]).map((detail) => detail.field);
      if (request.expect.field !== undefined && reply.status === request.expect.status && !fields.includes(request.expect.field)) {
        problems.push(`details name ${JSON.stringify(fields)}, expected ${request.expect.field}`);
      }
    }
  }
  return problems;
}

function printTotals(totals: Totals, alive: boolean): void {
  const statuses = Object.entries(totals.byStatus)
    .sort()
    .map(([status, count]) => `${status}: ${count}`)
    .join(', ');
  const families = Object.entries(totals.byFamily)
    .sort(([, a], [, b]) => b - a)
    .map(([family, count]) => `${family} ${count}`)
    .join(', ');
  console.log(
    [
      `hostile-input suite (seed ${SEED}; replay with HOSTILE_SEED=${SEED})`,
      `  requests: ${totals.requests}`,
      `  by status: ${statuses}`,
      `  by family: ${families}`,
      `  5xx = ${totals.serverErrors}, leaks = ${totals.leaks}, stored on 4xx = ${totals.storedOn4xx}, process alive = ${alive ? 'yes' : 'no'}`,
      `  other problems = ${totals.problems.length}`,
    ].join('\n'),
  );
}

beforeAll(async () => {
  service = await startTestService();
  client = tableClient(service.runtime);
  const tokens = {
    admin: await service.token('acme', 'admin'),
    operator: await service.token('acme', 'operator'),
    viewer: await service.token('acme', 'viewer'),
    otherAdmin: await service.token('other', 'admin'),
  };
  const post = (path: string, body: unknown, token = tokens.admin) =>
    send({
      method: 'POST',
      path,
      body: JSON.stringify(body),
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
  const schedules = [];
  for (const name of ['one', 'two', 'three']) schedules.push((await post('/api/scans/schedules/', scheduleBody({ name }))).json);
  const scans = [];
  for (const target of ['a-example.com', 'b-example.com', 'c-example.com'])
    scans.push((await post('/api/scans/', { scan_type: 'email_security', target })).json);
  const other = (await post('/api/scans/schedules/', scheduleBody({ name: 'other' }), tokens.otherAdmin)).json;
  await post('/api/scans/schedules/', scheduleBody({ name: 'other two' }), tokens.otherAdmin);
  const otherScan = (await post('/api/scans/', { scan_type: 'email_security', target: 'other.com' }, tokens.otherAdmin)).json;
  // Every scan fails with "no runner": the queue is empty again and the store is settled.
  await service.runtime.drain();
  const page = async (path: string, token = tokens.admin) =>
    (await send({ path, headers: { authorization: `Bearer ${token}` } })).json.next_cursor as string;
  // Artifacts: one pending (its upload token is forged, edited and misused below), one whose
  // upload was used, and one of the other tenant.
  const announce = async (token = tokens.admin) =>
    (await post('/api/artifacts/', { purpose: 'rua', filename: 'report.xml', size: 1024, content_type: 'application/xml' }, token)).json;
  const tokenOf = (artifact: { upload: { url: string } }) => new URL(artifact.upload.url).searchParams.get('token')!;
  const pending = await announce();
  const used = await announce();
  const uploaded = await send({
    method: 'PUT',
    path: `${UPLOAD_PATH}?token=${encodeURIComponent(tokenOf(used))}`,
    headers: { 'content-type': 'application/xml' },
    body: Buffer.alloc(1024, 0x20),
  });
  expect(uploaded.status, uploaded.text).toBe(200);
  const otherArtifact = await announce(tokens.otherAdmin);
  fixture = {
    url: service.runtime.url,
    sessionKey: SESSION_KEY,
    tokens,
    scheduleId: schedules[0].id,
    scanId: scans[0].id,
    otherScheduleId: other.id,
    otherScanId: otherScan.id,
    artifactId: pending.id,
    otherArtifactId: otherArtifact.id,
    uploadToken: tokenOf(pending),
    usedUploadToken: tokenOf(used),
    cursors: {
      schedules: await page('/api/scans/schedules/?limit=1'),
      scans: await page('/api/scans/?limit=1'),
      otherSchedules: await page('/api/scans/schedules/?limit=1', tokens.otherAdmin),
    },
  };
});

afterAll(async () => {
  client?.destroy();
  await service?.stop();
});

describe('hostile input against every endpoint', () => {
  it(`answers ${REQUESTS} generated requests with their documented status and error body, never a 5xx or a leak, and changes nothing`, async () => {
    expect(fixture.cursors.schedules).toBeTruthy();
    expect(fixture.cursors.scans).toBeTruthy();
    const requests = [...fc.sample(hostileRequests(fixture), { numRuns: REQUESTS, seed: SEED }), ...everyRoute(fixture)];
    const documented = documentedStatuses();
    const totals: Totals = { requests: 0, byStatus: {}, byFamily: {}, serverErrors: 0, leaks: 0, storedOn4xx: 0, problems: [] };

    for (let start = 0; start < requests.length; start += BATCH) {
      const batch = requests.slice(start, start + BATCH);
      const before = await state();
      const replies = await Promise.all(
        batch.map(async (request) => {
          const headers = { ...request.headers };
          for (const [name, prefix] of [
            ['authorization', 'Bearer '],
            ['cookie', 'session='],
          ] as const) {
            if (headers[name]?.startsWith(prefix))
              headers[name] = prefix + (await resolveToken(headers[name].slice(prefix.length), SESSION_KEY));
          }
          return send({ method: request.method, path: request.path, headers, body: request.body });
        }),
      );
      const after = await state();
      batch.forEach((request, index) => {
        const reply = replies[index];
        totals.requests += 1;
        totals.byStatus[reply.status] = (totals.byStatus[reply.status] ?? 0) + 1;
        totals.byFamily[request.family] = (totals.byFamily[request.family] ?? 0) + 1;
        if (reply.status >= 500) totals.serverErrors += 1;
        if (leaks(reply)) totals.leaks += 1;
        for (const problem of check(request, reply, documented.call(null, request.method, request.path)))
          totals.problems.push(`${describeRequest(request)}: ${problem}`);
      });
      // Every request of the batch was built to be refused: the store must not have moved.
      if (JSON.stringify(after) !== JSON.stringify(before)) {
        const accepted = batch.filter((_, index) => replies[index].status < 400);
        totals.storedOn4xx += batch.length - accepted.length;
        totals.problems.push(
          `the store changed in a batch of refused requests: ${JSON.stringify(before.items)} → ${JSON.stringify(after.items)}; accepted: ${accepted.map(describeRequest).join(' | ')}`,
        );
      }
    }

    const alive = (await send({ path: '/api/health' })).status === 200;
    printTotals(totals, alive);
    expect(totals.problems.slice(0, 15)).toEqual([]);
    expect(totals.requests).toBeGreaterThanOrEqual(2000);
    expect(totals.serverErrors).toBe(0);
    expect(totals.leaks).toBe(0);
    expect(totals.storedOn4xx).toBe(0);
    expect(alive).toBe(true);
    // Every family had its share of the run, and every route of the API and every local endpoint was hit.
    expect(Object.keys(totals.byFamily).length).toBeGreaterThanOrEqual(24);
    const hit = (method: string, template: string) => {
      const pattern = new RegExp(`^${template.replace(/\/$/, '').replace(/\{\w+\}/g, '[^/]+')}/?$`);
      return requests.some((request) => request.method === method && pattern.test(request.path.split('?')[0]));
    };
    const missed = [
      ...routes.map((route) => [route.method, route.path]),
      ['POST', '/_local/reconcile'],
      ['POST', '/_local/backfill'],
      ['PUT', UPLOAD_PATH],
    ].filter(([method, path]) => !hit(method, path));
    expect(missed).toEqual([]);
    for (const count of Object.values(totals.byFamily)) expect(count).toBeGreaterThanOrEqual(REQUESTS / 100);
  }, 120_000);

  it('stores names in any script exactly as sent, and reads them back unchanged', async () => {
    const visible = fc.oneof(
      fc.constantFrom(
        'Contrôle du courrier',
        'メール監視',
        'مراقبة البريد',
        'בדיקת דואר',
        'Проверка почты',
        '📬 mail ✅',
        'e\u0301cole',
        '👩‍👩‍👧 family',
        'ﷺ',
        'क्षत्रिय',
        '𝔐𝔞𝔦𝔩',
      ),
      fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
        .filter((name) => /[\p{L}\p{N}\p{S}\p{P}]/u.test(name) && !/[\p{Cc}\p{Cs}\u202a-\u202e\u2066-\u2069]/u.test(name)),
    );
    await fc.assert(
      fc.asyncProperty(visible, async (name) => {
        const created = await send({
          method: 'POST',
          path: '/api/scans/schedules/',
          body: JSON.stringify(scheduleBody({ name, enabled: false })),
          headers: { authorization: `Bearer ${fixture.tokens.admin}`, 'content-type': 'application/json' },
        });
        expect(created.status, created.text).toBe(201);
        const read = await send({
          path: `/api/scans/schedules/${created.json.id}/`,
          headers: { authorization: `Bearer ${fixture.tokens.admin}` },
        });
        expect(read.json.name).toBe(name.trim());
        const deleted = await send({
          method: 'DELETE',
          path: `/api/scans/schedules/${created.json.id}/`,
          headers: { authorization: `Bearer ${fixture.tokens.admin}` },
        });
        expect(deleted.status).toBe(204);
      }),
      { numRuns: 30, seed: SEED },
    );
  });

  it('accepts a valid body of exactly 64 KiB and refuses one byte more', async () => {
    const base = JSON.stringify(scheduleBody({ name: 'padded', enabled: false }));
    const exact = `${base.slice(0, -1)}${' '.repeat(64 * 1024 - base.length)}}`;
    const over = `${base.slice(0, -1)}${' '.repeat(64 * 1024 - base.length + 1)}}`;
    const headers = { authorization: `Bearer ${fixture.tokens.admin}`, 'content-type': 'application/json' };

    const accepted = await send({ method: 'POST', path: '/api/scans/schedules/', body: exact, headers });
    const refused = await send({ method: 'POST', path: '/api/scans/schedules/', body: over, headers });

    expect(Buffer.byteLength(exact)).toBe(64 * 1024);
    expect(accepted.status).toBe(201);
    expect(refused.status).toBe(413);
    await send({ method: 'DELETE', path: `/api/scans/schedules/${accepted.json.id}/`, headers });
  });
});

describe('concurrent changes to one schedule', () => {
  it('ends 20 parallel toggles, PATCHes and run-nows in a state some serial order of the accepted ones gives', async () => {
    const headers = { authorization: `Bearer ${fixture.tokens.admin}`, 'content-type': 'application/json' };
    const created = (
      await send({ method: 'POST', path: '/api/scans/schedules/', body: JSON.stringify(scheduleBody({ name: 'contended' })), headers })
    ).json;
    const id = created.id as string;
    const queuedBefore = service.runtime.scanQueue.stats();
    const cadences = ['weekly', 'monthly', 'daily'] as const;
    const operations = Array.from({ length: 20 }, (_, i) => {
      if (i % 3 === 0) return { kind: 'toggle' as const, method: 'POST', path: `/api/scans/schedules/${id}/toggle/` };
      if (i % 3 === 1)
        return {
          kind: 'patch' as const,
          method: 'PATCH',
          path: `/api/scans/schedules/${id}/`,
          name: `patch ${i}`,
          cadence: cadences[i % 3 === 1 ? (i >> 1) % 3 : 0],
        };
      return { kind: 'run' as const, method: 'POST', path: `/api/scans/schedules/${id}/run/` };
    });

    const replies = await Promise.all(
      operations.map((operation) =>
        send({
          method: operation.method,
          path: operation.path,
          headers,
          body: operation.kind === 'patch' ? JSON.stringify({ name: operation.name, cadence: operation.cadence }) : undefined,
        }),
      ),
    );

    for (const reply of replies) {
      expect([200, 202, 409], reply.text).toContain(reply.status);
      if (reply.status === 409) expect(errorBodyProblem(reply)).toBeNull();
    }
    const accepted = operations.map((operation, index) => ({ operation, reply: replies[index] })).filter(({ reply }) => reply.status < 300);
    const toggles = accepted.filter(({ operation }) => operation.kind === 'toggle');
    const patches = accepted.filter(({ operation }) => operation.kind === 'patch');
    const runs = accepted.filter(({ operation }) => operation.kind === 'run');
    const row = (await service.runtime.repo.get('acme', id))!;

    // Each accepted write happened exactly once, one after another.
    expect(row.version).toBe(1 + toggles.length + patches.length);
    expect(row.enabled).toBe(toggles.length % 2 === 0);
    if (patches.length === 0) expect(row.name).toBe('contended');
    else expect(patches.map(({ operation }) => `${operation.name}/${operation.cadence}`)).toContain(`${row.name}/${row.cadence}`);
    for (const { operation, reply } of patches) expect(reply.json.name).toBe(operation.name);
    // The trigger is the row's, whichever write came last.
    const triggers = (await service.runtime.scheduler.list()).filter((trigger) => trigger.scheduleId === id);
    const wanted = desiredTrigger(row);
    expect(triggers.map((trigger) => [trigger.expression, trigger.timezone])).toEqual(
      wanted ? wanted.expressions.map((expression) => [expression, wanted.timezone]) : [],
    );
    // Each accepted run-now made exactly one job, queued once; the row names the newest.
    const jobs = (await service.runtime.scans.list('acme', { scheduleId: id }, 200)).items;
    const runIds = runs.map(({ reply }) => reply.json.scan.id as string);
    expect(new Set(runIds).size).toBe(runs.length);
    expect(jobs.map((job) => job.id).sort()).toEqual([...runIds].sort());
    expect(jobs.every((job) => job.trigger === 'run_now')).toBe(true);
    const queuedAfter = service.runtime.scanQueue.stats();
    expect(queuedAfter.visible + queuedAfter.inFlight - queuedBefore.visible - queuedBefore.inFlight).toBe(runs.length);
    if (runs.length > 0) expect(row.last_scan_id).toBe([...runIds].sort().at(-1));
    expect(runs.length).toBeGreaterThan(0);
  });
});
