import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSchedulesHandler } from '../../functions/api/schedules-handler.ts';
import { LocalQueue } from '../../shared/adapters/local/local-queue.ts';
import { LocalTriggerScheduler } from '../../shared/adapters/local/local-trigger-scheduler.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import type { ApiEvent } from '../../shared/http/api-types.ts';
import { makeLogger } from '../../shared/observability/logger.ts';
import { makeArtifactReferences } from '../../shared/services/artifact-references.ts';
import { composeScheduleService } from '../../shared/services/compose/schedule-service.ts';
import { composeNotificationServices } from '../../shared/services/compose/notification-service.ts';
import { makeHttpPoster } from '../../shared/adapters/notifications/http-poster.ts';
import { makeOutboxEmailSender } from '../../shared/adapters/notifications/email-senders.ts';
import { InMemoryNotificationRuleRepository } from '../fakes/in-memory-notification-rule-repository.ts';
import { InMemoryCredentialRepository } from '../fakes/in-memory-credential-repository.ts';
import { makeLocalKeyWrapper } from '../../shared/adapters/local/local-key-wrapper.ts';
import { makeCredentialService } from '../../shared/services/credential-service.ts';
import { InMemoryArtifactRepository } from '../fakes/in-memory-artifact-repository.ts';
import { InMemoryScheduleRepository } from '../fakes/in-memory-schedule-repository.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { scheduleBody, startTestService, type TestService } from '../helpers/local-service.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** Heap in use after full collections: what the process retains, not what it has yet to collect. */
function retainedHeap(): number {
  for (let i = 0; i < 3; i += 1) gc();
  return process.memoryUsage().heapUsed;
}

const MB = 1024 * 1024;

/**
 * Whatever grows with requests shows as retained heap after full collections. The bounds sit well
 * above what these loops retain today and well below what a per-request retainer of a few hundred
 * bytes adds (docs/memory.md); each test asserts growth, never time.
 */
describe('memory held across requests', () => {
  describe('the local service on a data directory (npm start)', () => {
    let service: TestService;
    let dataDir: string;
    let token: string;
    let id: string;

    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'memory-'));
      service = await startTestService({ dataDir });
      token = await service.token('memory', 'admin');
      for (let i = 0; i < 20; i += 1)
        id = (
          await service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody({ target: `site${i}.example.com` }) })
        ).body.id;
    });
    afterAll(async () => {
      await service.stop();
      await rm(dataDir, { recursive: true, force: true });
    });

    const paths = () => [
      '/api/scans/schedules/',
      `/api/scans/schedules/${id}/`,
      '/api/scans/',
      '/api/findings/',
      '/api/scans/schedules/?limit=5',
    ];
    async function requests(count: number): Promise<void> {
      for (let i = 0; i < count; i += 1) {
        const reply = await service.call(paths()[i % 5], { token });
        if (reply.status !== 200) throw new Error(`request ${i}: ${reply.status}`);
      }
    }

    it('retains no heap per request over 3,000 reads (lists and gets)', async () => {
      // Past the JIT's warm-up: its compiled code is most of what the first thousand requests add.
      await requests(1_000);
      const before = retainedHeap();

      await requests(3_000);
      const grown = retainedHeap() - before;

      // Before dynalite's iterators were closed: about 7.8 MB here (2.6 KB a request); after, under 1.
      expect(grown / MB).toBeLessThan(3);
    }, 180_000);
  });

  describe('one warm Lambda handler instance (the schedules function, invoked in-process)', () => {
    const logLevel = process.env.LOG_LEVEL;
    let handler: ReturnType<typeof makeSchedulesHandler>;
    let ids: string[] = [];

    beforeAll(async () => {
      // The real Powertools logger, whose per-invocation keys a leak would keep; quiet below errors.
      process.env.LOG_LEVEL = 'ERROR';
      const clock = new ManualClock('2026-03-02T10:00:00Z');
      const logger = makeLogger('schedules');
      const schedules = composeScheduleService(
        {
          schedules: new InMemoryScheduleRepository(),
          clock,
          ids: makeUlidGenerator(() => clock.now().getTime()),
          logger,
          runnerTypes: new Set(['email_security'] as const),
        },
        {
          triggers: new LocalTriggerScheduler({ clock, queue: new LocalQueue({ name: 'q', clock, visibilityTimeoutMs: 1000 }) }),
          quota: 500,
          artifacts: makeArtifactReferences(new InMemoryArtifactRepository(), clock),
        },
      );
      const { notifications } = composeNotificationServices(
        { clock, ids: makeUlidGenerator(() => clock.now().getTime()), logger },
        {
          rules: new InMemoryNotificationRuleRepository(),
          http: makeHttpPoster({ policy: { allowPrivate: false } }),
          email: makeOutboxEmailSender(join(tmpdir(), 'unused-outbox'), 'scans@service.example'),
          appUrl: 'https://scans.example',
          targetPolicy: { allowPrivate: false },
        },
      );
      const credentials = makeCredentialService({
        repo: new InMemoryCredentialRepository(),
        wrapper: await makeLocalKeyWrapper(await mkdtemp(join(tmpdir(), 'memory-vault-'))),
        clock,
        logger,
        targetPolicy: { allowPrivate: false },
      });
      handler = makeSchedulesHandler({ schedules, notifications, credentials, logger, allowedOrigins: [] });
      ids = [];
      for (let i = 0; i < 20; i += 1)
        ids.push((await schedules.create('memory', scheduleBody({ target: `site${i}.example.com` }) as never)).id);
    });
    afterAll(() => {
      if (logLevel === undefined) delete process.env.LOG_LEVEL;
      else process.env.LOG_LEVEL = logLevel;
    });

    /** An HTTP API event as API Gateway sends it after the authorizer, for a GET of `path`. */
    function event(n: number): ApiEvent {
      const path = n % 2 === 0 ? '/api/scans/schedules/' : `/api/scans/schedules/${ids[n % ids.length]}/`;
      const routeKey = n % 2 === 0 ? 'GET /api/scans/schedules/' : 'GET /api/scans/schedules/{id}/';
      return {
        version: '2.0',
        routeKey,
        rawPath: path,
        rawQueryString: '',
        headers: {},
        pathParameters: n % 2 === 0 ? undefined : { id: ids[n % ids.length] },
        requestContext: {
          requestId: `req-${n}`,
          routeKey,
          http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '192.0.2.1', userAgent: 'test' },
          authorizer: {
            lambda: {
              sub: 'admin@memory',
              tenant: 'memory',
              role: 'admin',
              via: 'bearer',
              expires_at: '2026-03-02T18:00:00Z',
              cursor_keys: 'memory-test-cursor-key-0123456789abcdefghij',
            },
          },
        },
        isBase64Encoded: false,
      } as unknown as ApiEvent;
    }

    const context = (n: number) =>
      ({
        awsRequestId: `req-${n}`,
        functionName: 'schedules',
        functionVersion: '$LATEST',
        memoryLimitInMB: '512',
        invokedFunctionArn: 'arn:aws:lambda:eu-west-1:000000000000:function:schedules',
        getRemainingTimeInMillis: () => 10_000,
      }) as unknown as Context;

    async function invocations(from: number, count: number): Promise<void> {
      for (let n = from; n < from + count; n += 1) {
        const result = await handler(event(n), context(n));
        if (result.statusCode !== 200) throw new Error(`invocation ${n}: ${result.statusCode} ${result.body}`);
      }
    }

    it('retains no heap per invocation over 10,000 invocations', async () => {
      await invocations(0, 1_000);
      const before = retainedHeap();

      await invocations(1_000, 10_000);
      const grown = retainedHeap() - before;

      // About 0.1 MB here: a retainer of 200 bytes an invocation would be 2 MB.
      expect(grown / MB).toBeLessThan(1.5);
    }, 180_000);
  });
});
