import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeLogger } from '../../shared/observability/logger.ts';
import { scheduleBody, startTestService, type TestService } from '../helpers/local-service.ts';

interface LogLine {
  message: string;
  request_id?: string;
  function_request_id?: string;
  tenant?: string;
  schedule_id?: string;
}

describe('request logging on the local server', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService({ logger: makeLogger('local') });
  });
  afterAll(() => service.stop());

  it("keys each request's lines with its own request id and tenant while requests overlap", async () => {
    const tenants = Array.from({ length: 8 }, (_, i) => `tenant-${i}`);
    const tokens = await Promise.all(tenants.map((tenant) => service.token(tenant, 'admin')));
    const written: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    let replies;
    try {
      replies = await Promise.all(
        tokens.map((token) => service.call('/api/scans/schedules/', { method: 'POST', token, body: scheduleBody() })),
      );
    } finally {
      spy.mockRestore();
    }

    expect(replies.map((reply) => reply.status)).toEqual(tenants.map(() => 201));
    const lines = written
      .flatMap((chunk) => chunk.split('\n'))
      .filter(Boolean)
      .map((line) => JSON.parse(line) as LogLine);
    const created = lines.filter((line) => line.message === 'schedule created');
    expect(created).toHaveLength(tenants.length);
    // One invocation per request: its own id on each of its lines, the one Powertools took from its context.
    expect(new Set(created.map((line) => line.request_id)).size).toBe(tenants.length);
    for (const line of created) expect(line.request_id).toBe(line.function_request_id);
    expect(created.map((line) => line.tenant).sort()).toEqual([...tenants].sort());
  });
});
