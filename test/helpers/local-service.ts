import { signSessionToken } from '../../shared/auth/session-token.ts';
import type { Role } from '../../shared/domain/identity.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '../../local/runtime.ts';
import { runnerScanTypes } from '../../shared/domain/runner-types.ts';
import type { ScanType } from '../../shared/domain/scan-types.ts';
import type { ScanRunner } from '../../shared/ports/scan-runner.ts';

export const SESSION_KEY = 'test-session-key-0123456789-abcdefghijklmnopqrstuvwxyz';

export interface ApiCall {
  method?: string;
  token?: string | null;
  /** Sent as the `session` cookie instead of the Bearer header. */
  cookie?: boolean;
  body?: unknown;
  /** A raw body string, sent as is. */
  raw?: string;
  headers?: Record<string, string>;
}

export interface ApiReply {
  status: number;
  body: any;
  headers: Headers;
}

export interface TestService {
  runtime: LocalRuntime;
  clock: ManualClock;
  token(tenant: string, role?: Role): Promise<string>;
  call(path: string, options?: ApiCall): Promise<ApiReply>;
  stop(): Promise<void>;
}

/**
 * The whole local service (dynalite in memory, local scheduler and queue, the real handlers behind
 * the real HTTP server) on a random loopback port, with a clock the test moves.
 */
/**
 * A runner for every scan type this build has an engine for, that runs nothing: the API accepts
 * only types with a runner (DESIGN §4), and a test that does not scan still creates schedules and
 * scans of those types. A job it gets fails saying so, as a job of a type without a runner did.
 */
export function engineLessRunners(types: readonly ScanType[] = runnerScanTypes()): Map<ScanType, ScanRunner> {
  const runner: ScanRunner = {
    name: 'engine-less',
    run: async ({ scanType }) => ({ findings: [], errors: [`the test runtime has no engine for ${scanType}`] }),
  };
  return new Map(types.map((type) => [type, runner]));
}

export async function startTestService(options: LocalRuntimeOptions = {}): Promise<TestService> {
  const clock = new ManualClock('2026-03-02T10:00:00Z');
  const runtime = await startLocalRuntime({
    clock,
    sessionKey: SESSION_KEY,
    logger: silentLogger,
    runners: engineLessRunners(),
    ...options,
  });
  const tokens = new Map<string, string>();
  return {
    runtime,
    clock,
    async token(tenant, role = 'admin') {
      const key = `${tenant}/${role}`;
      if (!tokens.has(key)) tokens.set(key, await signSessionToken({ sub: `${role}@${tenant}`, tenant, role }, SESSION_KEY));
      return tokens.get(key)!;
    },
    async call(path, { method = 'GET', token, cookie = false, body, raw, headers = {} } = {}) {
      const sent: Record<string, string> = { ...headers };
      if (token) {
        if (cookie) sent.cookie = `session=${token}`;
        else sent.authorization = `Bearer ${token}`;
      }
      let payload: string | undefined = raw;
      if (body !== undefined) {
        payload = JSON.stringify(body);
        sent['content-type'] ??= 'application/json';
      }
      const response = await fetch(`${runtime.url}${path}`, { method, headers: sent, body: payload });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
    },
    stop: () => runtime.stop(),
  };
}

let tenantsHandedOut = 0;

/**
 * A tenant id no other test in this process has used. Each test works in a tenant of its own, so
 * tests that share one running service never see each other's rows and nothing is cleaned up
 * between them; the prefix only makes a failing test's ids easier to read.
 */
export function freshTenant(prefix = 'tenant'): string {
  tenantsHandedOut += 1;
  return `${prefix}-${tenantsHandedOut}`;
}

/** A valid create body; override any field. */
/**
 * Moves the clock by `ms` (a schedule's next fire), drains the queues, and reads the schedule and
 * the scan its last run made: what every "a scheduled scan end to end" test does after each fire.
 */
export async function fireAndRead(
  service: TestService,
  token: string,
  scheduleId: string,
  ms: number,
): Promise<{ schedule: Record<string, any>; scan: Record<string, any> }> {
  service.clock.advance(ms);
  await service.runtime.drain();
  const schedule = (await service.call(`/api/scans/schedules/${scheduleId}/`, { token })).body;
  const scan = (await service.call(`/api/scans/${schedule.last_scan_id}/`, { token })).body;
  return { schedule, scan };
}

export function scheduleBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: 'Mail posture', scan_type: 'email_security', target: 'example.com', cadence: 'daily', ...overrides };
}

/** Everything the tenant has stored and provisioned: to assert that a refused request changed nothing. */
export async function snapshot(runtime: LocalRuntime, tenant?: string): Promise<string> {
  const rows = [];
  for await (const row of runtime.repo.listAll(tenant)) rows.push(row);
  const triggers = (await runtime.scheduler.list()).filter((t) => tenant === undefined || t.tenant === tenant);
  const counts = tenant ? await runtime.repo.count(tenant) : null;
  return JSON.stringify({
    rows: rows.sort((a, b) => a.id.localeCompare(b.id)),
    triggers: triggers.sort((a, b) => a.name.localeCompare(b.name)),
    counts,
    queued: runtime.scanQueue.stats(),
  });
}
