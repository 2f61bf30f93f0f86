/**
 * The three ways a narrower or another scan type's scan used to change issues it never looked at
 * (issue 34), with the real engines run in-process against real servers on loopback: redis-server
 * on a port outside top100, and a git HTTP server with a secret only in history. Each scan goes
 * through the one scan path (makeScanEngine) onto in-memory repositories held to the DynamoDB
 * adapters' contract.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runEngineCli, type EngineDefinition } from '../../layers/engine-kit/src/cli.ts';
import { engineReportSchema } from '../../lib/report.ts';
import { netscanDefinition } from '../../layers/netscan/src/engine.ts';
import { secretscan } from '../../layers/secretscan/src/engine.ts';
import { resultOfEngineReport } from '../../shared/adapters/runners/engine-runner.ts';
import type { ServiceEvent } from '../../shared/domain/notification.ts';
import type { ScanJobRecord } from '../../shared/domain/scan-job.ts';
import type { ScanType } from '../../shared/domain/scan-types.ts';
import type { ScanRunner } from '../../shared/ports/scan-runner.ts';
import { makeIssueService } from '../../shared/services/issue-service.ts';
import { makeScanEngine } from '../../shared/services/scan-engine.ts';
import { InMemoryFindingRepository } from '../fakes/in-memory-finding-repository.ts';
import { InMemoryIssueRepository } from '../fakes/in-memory-issue-repository.ts';
import { InMemorySlaRepository } from '../fakes/in-memory-sla-repository.ts';
import { InMemoryScanRepository } from '../fakes/in-memory-scan-repository.ts';
import { InMemoryScheduleRepository } from '../fakes/in-memory-schedule-repository.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { gitAvailable, startGitServer, type GitServer } from '../helpers/git-http-server.ts';
import { scanJobRecord } from '../contracts/scan-repository-contract.ts';
import { buildRepositories, type Fixtures } from '../../layers/secretscan/test/repositories.ts';

const ENOUGH_TIME = () => 600_000;

/** An engine's CLI run in this process, its report mapped as the service's engine runner maps it. */

function inProcessRunner(name: string, definition: EngineDefinition<any>, env: Record<string, string>, work: string): ScanRunner {
  return {
    name,
    async run({ target, scope, scanType }) {
      const scopeFile = join(work, `scope-${Math.random().toString(36).slice(2)}.json`);
      const netscanMode = scanType === 'vm' || scanType === 'vapt' ? { mode: scanType } : {};
      await writeFile(scopeFile, JSON.stringify({ ...scope, ...netscanMode }));
      // redis never greets first: a short greeting wait keeps each probe of it short.
      const configFile = join(work, 'config.json');
      await writeFile(configFile, JSON.stringify({ netscan: { greeting_ms: 300, read_timeout_ms: 1500 } }));
      const config = name === 'netscan' ? [`--config=${configFile}`] : [];
      let stdout = '';
      const args = ['scan', `--scope-json=${scopeFile}`, ...config, '--timeout=120', '--format=json', '--', target];
      const code = await runEngineCli(definition, args, {
        stdout: (text) => (stdout += text),
        stderr: () => undefined,
        env: { ...env, TMPDIR: work },
        now: () => new Date(),
      });
      if (code !== 0) throw new Error(`${name} exited ${code}`);
      return resultOfEngineReport(engineReportSchema().parse(JSON.parse(stdout)));
    },
  };
}

function scanPathWith(runners: [ScanType, ScanRunner][]) {
  const clock = new ManualClock('2026-11-28T10:00:00.000Z');
  const issues = new InMemoryIssueRepository();
  const findings = new InMemoryFindingRepository();
  const scans = new InMemoryScanRepository();
  const events: ServiceEvent[] = [];
  const engine = makeScanEngine({
    scans,
    findings,
    issues,
    schedules: new InMemoryScheduleRepository(),
    runners: new Map(runners),
    clock,
    scanLogs: {
      location: () => ({ file: '/dev/null' }),
      loggerFor: () => ({ debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }),
      read: async () => ({ lines: [], truncated: false }),
    },
    events: { publish: async (published) => void events.push(...published) },
    marginMs: 1_000,
  });
  let n = 0;
  const run = async (overrides: Partial<ScanJobRecord>) => {
    n += 1;
    clock.advance(3_600_000);
    const job = scanJobRecord('acme', n, { status: 'queued', targets: [], ...overrides });
    await scans.create(job);
    return engine.execute(job, ENOUGH_TIME);
  };
  return { clock, issues, findings, events, run };
}

/** A free loopback TCP port outside netscan's top100, so a default scan never connects to it. */
async function portOutsideTop100(): Promise<number> {
  for (const candidate of [6390, 6391, 16390, 26390]) {
    const free = await new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(candidate, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return candidate;
  }
  throw new Error('no free port for redis');
}

describe('issues resolve only inside coverage, keep their identity and decisions (real engines)', () => {
  let work: string;
  let redis: ChildProcess;
  let redisPort: number;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'issue-coverage-'));
    redisPort = await portOutsideTop100();
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      redis.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('Ready to accept connections')) resolve();
      });
      redis.once('exit', (code) => reject(new Error(`redis-server exited ${code}`)));
    });
  });

  afterAll(() => {
    redis?.kill();
  });

  const netscan = () => inProcessRunner('netscan', netscanDefinition(), { NETSCAN_ALLOW_LOOPBACK: '1' }, work);

  it('keeps the redis issues of a non-top-100 port open through a default top-100 VAPT scan', async () => {
    const path = scanPathWith([['vapt', netscan()]]);
    const first = await path.run({ scan_type: 'vapt', target: '127.0.0.1', scope: { ports: [redisPort] } });
    const where = `127.0.0.1:${redisPort}`;
    // The first scan looked at redis's port alone: every issue it opened is redis's.
    const redisIssues = [...path.issues.rows.values()].filter((issue) => issue.last_scan_id === first.id);
    expect(first.status).toBe('succeeded');
    expect(redisIssues.map((issue) => issue.rule_id).sort()).toEqual([
      'net.exposed.database',
      'net.port.open',
      'net.unauthenticated.access',
    ]);

    const second = await path.run({ scan_type: 'vapt', target: '127.0.0.1', scope: {} });
    for (const issue of redisIssues) expect(path.issues.rows.get(`acme/${issue.id}`)).toMatchObject({ status: 'open' });

    // The top-100 scan passed its port checks, but over ports that do not include redis's.
    expect(second.checks?.find((check) => check.id === 'net.port.open')).toMatchObject({
      status: expect.stringMatching(/pass|fail/),
      coverage: { kind: 'network', scanned: [{ protocol: 'tcp', hosts: ['127.0.0.1'] }] },
    });
    expect(path.events.filter((event) => event.type === 'issue.resolved' && event.data.issue.subject === where)).toEqual([]);
    expect(redisIssues.every((issue) => issue.subject === where)).toBe(true);

    // A scan that does cover the port, with redis gone, resolves them.
    redis.kill();
    await new Promise((resolve) => redis.once('exit', resolve));
    const third = await path.run({ scan_type: 'vapt', target: '127.0.0.1', scope: { ports: [redisPort] } });
    expect(third.changes?.resolved).toBe(3);
    for (const issue of redisIssues) expect(path.issues.rows.get(`acme/${issue.id}`)).toMatchObject({ status: 'resolved' });
  });
});

describe('one issue per problem across vm and vapt; a decision stands', () => {
  let work: string;
  let redis: ChildProcess;
  let redisPort: number;

  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'issue-identity-'));
    redisPort = await portOutsideTop100();
    redis = spawn('redis-server', ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      redis.stdout!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (seen.includes('Ready to accept connections')) resolve();
      });
      redis.once('exit', (code) => reject(new Error(`redis-server exited ${code}`)));
    });
  });

  afterAll(() => {
    redis?.kill();
  });

  it('vm, then an accepted risk, then vapt: the acceptance, first seen and count stand, and no issue.opened', async () => {
    const runner = inProcessRunner('netscan', netscanDefinition(), { NETSCAN_ALLOW_LOOPBACK: '1' }, work);
    const path = scanPathWith([
      ['vm', runner],
      ['vapt', runner],
    ]);
    const scope = { ports: [redisPort] };
    await path.run({ scan_type: 'vm', target: '127.0.0.1', scope });
    const database = [...path.issues.rows.values()].find((issue) => issue.rule_id === 'net.exposed.database')!;
    const service = makeIssueService({
      issues: path.issues,
      findings: new InMemoryFindingRepository(),
      scans: new InMemoryScanRepository(),
      sla: new InMemorySlaRepository(),
      clock: path.clock,
      logger: silentLogger,
    });
    await service.triage('acme', database.id, { status: 'accepted_risk', reason: 'lab box, firewalled' }, 'alice');
    const eventsBefore = path.events.length;

    const vapt = await path.run({ scan_type: 'vapt', target: '127.0.0.1', scope });

    const after = path.issues.rows.get(`acme/${database.id}`)!;
    expect(after).toMatchObject({
      status: 'accepted_risk',
      status_reason: 'lab box, firewalled',
      first_seen_at: database.first_seen_at,
      occurrence_count: 2,
      scan_type: 'vm',
      scan_types: ['vm', 'vapt'],
    });
    const opened = path.events.slice(eventsBefore).filter((event) => event.type === 'issue.opened');
    expect(opened.map((event) => ('issue' in event.data ? event.data.issue.rule_id : null))).toEqual(['net.unauthenticated.access']);
    expect(vapt.changes).toMatchObject({ new: 1 });
    // One issue per (target, rule, subject), whichever scan type saw it.
    const keys = [...path.issues.rows.values()].map((issue) => `${issue.target}|${issue.rule_id}|${issue.subject}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe.skipIf(!gitAvailable())('a secret only in history stays open through a scan of the tip', () => {
  let server: GitServer;
  let fixtures: Fixtures;
  let work: string;

  beforeAll(async () => {
    server = await startGitServer();
    fixtures = await buildRepositories(server);
    work = await mkdtemp(join(tmpdir(), 'issue-history-'));
  }, 120_000);

  afterAll(async () => {
    await server?.close();
  });

  it('history off after history on resolves none of the secrets only in history', async () => {
    const runner = inProcessRunner('secretscan', secretscan, { SECRETSCAN_ALLOW_LOOPBACK: '1' }, work);
    const path = scanPathWith([['secret_scan', runner]]);
    const target = `${server.origin}/leaky.git`;
    await path.run({ scan_type: 'secret_scan', target, scope: {} });
    const removed = new Set(
      [...path.findings.rows.values()]
        .filter(({ finding }) => finding.evidence.in_head === false)
        .map(({ finding }) => finding.fingerprint),
    );
    const historyOnly = [...path.issues.rows.values()].filter((issue) => removed.has(issue.fingerprint));
    expect(historyOnly.length).toBeGreaterThanOrEqual(2);

    const tip = await path.run({ scan_type: 'secret_scan', target, scope: { history: false } });

    for (const issue of historyOnly) expect(path.issues.rows.get(`acme/${issue.id}`)!.status).toBe('open');
    expect(tip.changes?.resolved).toBe(0);
    expect(tip.checks?.find((check) => check.id === 'secret.slack_token')).toMatchObject({
      coverage: { kind: 'repository', history: { read: false } },
    });
    expect(historyOnly.every((issue) => /^[^:]+:\d+$/.test(issue.subject))).toBe(true);
    void fixtures;
  });
});
