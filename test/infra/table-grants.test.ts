import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScanServiceStack } from '../../infra/scan-service-stack.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { ensureArtifactDir } from '../../shared/adapters/local/local-artifact-store.ts';
import type { LegacySchedule } from '../../shared/domain/legacy/legacy-schedule.ts';
import { routes } from '../../functions/api/routes.ts';
import { jobForSchedule } from '../../shared/domain/scan-job.ts';
import { routeKeyOf } from '../../shared/http/routes.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { makeBackfillService } from '../../shared/services/backfill-service.ts';
import { InMemoryLegacySource } from '../fakes/in-memory-legacy-source.ts';
import { scheduleBody, startTestService, type ApiCall, type ApiReply, type TestService } from '../helpers/local-service.ts';
import { ScriptedRunner, finding } from '../helpers/test-runners.ts';
import {
  arnOf,
  environments,
  logicalId,
  statementsOfRole,
  synthesizedStack,
  synthesizedStackWithBackfill,
  type Json,
  type SynthesizedStack,
} from './synthesized-stack.ts';

/**
 * Every DynamoDB command the code issues is within the IAM grant of the Lambda function that
 * issues it in AWS, so the stack's TABLE_ACTIONS cannot drift from the adapters.
 *
 * The local runtime runs every function's handlers and services in one process over dynalite; the
 * test drives each function's routes and events one at a time, records each DynamoDB command (by
 * `beforeDynamoCall`, so refused conditional writes count too) with what was being served, and
 * maps that to a function through the synthesized template: API route → integration → function,
 * queue → event source mapping → function, bucket notification → function, nightly rule → function.
 */

/** What the runtime was serving when a DynamoDB command went out. */
type Source =
  | { kind: 'route'; routeKey: string }
  | { kind: 'queue'; queue: 'scanQueue' | 'scanDeadLetterQueue' | 'notificationQueue' }
  | { kind: 'artifact object created' }
  | { kind: 'nightly reconcile' }
  | { kind: 'hourly digest flush' }
  | { kind: 'backfill invocation' }
  | { kind: 'EventBridge Scheduler' }
  | { kind: 'local only'; what: string };

interface RecordedCall {
  source: Source | null;
  step: string;
  action: string;
  index: string | null;
}

/**
 * Granted actions nothing on the driven paths uses, each with why it stays. A grant that becomes
 * unused, or one of these that becomes used, fails the test so this list stays true.
 */
const GRANTED_BUT_UNUSED: Record<string, { actions: string[]; why: string }> = {};

const tenant = 'grants';
const QUOTA = 6;
const REPORT = readFileSync(new URL('../fixtures/mailscan/rua/google.xml', import.meta.url));
const FIVE_MINUTES = 5 * 60_000;

function legacyRow(id: number): LegacySchedule {
  return {
    model: 'secretscan.schedule',
    id: String(id),
    name: `repo ${id}`,
    repository_url: `https://github.com/legacy-co/repo-${id}`,
    scan_options: null,
    created_at: null,
    task: {
      id: 100 + id,
      name: `t${id}`,
      task: 'secretscan.run',
      enabled: true,
      one_off: false,
      crontab: { minute: '0', hour: '2', day_of_week: '*', day_of_month: '*', month_of_year: '*', timezone: 'UTC' },
      interval: null,
    },
  };
}

/** The route of functions/api/routes.ts a request goes to: `GET /api/scans/schedules/{id}`. */
function routeKeyFor(method: string, path: string): string {
  const bare = path.split('?')[0];
  for (const route of routes) {
    // Routes are listed literal paths first (`schedules/` before `{id}/`); the trailing slash is optional.
    const pattern = new RegExp(`^${route.path.replace(/\/$/, '').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
    if (route.method === method && pattern.test(bare)) return routeKeyOf(route.method, route.path);
  }
  throw new Error(`no route serves ${method} ${path}`);
}

// ---- what the synthesized stack says ----------------------------------------------------------

type FunctionKey = keyof ScanServiceStack['functions'] | 'backfill';

type ServiceFunctionOf = NonNullable<ScanServiceStack['functions'][keyof ScanServiceStack['functions']]>;
function functionsOf(stack: ScanServiceStack): Array<[FunctionKey, ServiceFunctionOf]> {
  const entries = (Object.entries(stack.functions) as Array<[FunctionKey, ServiceFunctionOf | undefined]>).filter(
    (entry): entry is [FunctionKey, ServiceFunctionOf] => entry[1] !== undefined,
  );
  return stack.backfill ? [...entries, ['backfill', stack.backfill.fn]] : entries;
}

function functionOfLogicalId({ stack }: SynthesizedStack, id: string): FunctionKey {
  const found = functionsOf(stack).find(([, fn]) => logicalId(stack, fn.handler) === id);
  if (!found) throw new Error(`${id} is not one of the stack's service functions`);
  return found[0];
}

/** The function id in `{ 'Fn::GetAtt': [id, 'Arn'] }` or `{ Ref: id }`. */
function referencedId(value: Json): string {
  if (value?.['Fn::GetAtt']) return value['Fn::GetAtt'][0];
  if (value?.Ref) return value.Ref;
  throw new Error(`not a reference: ${JSON.stringify(value)}`);
}

/** Which function serves `source` in AWS, read from the template. */
function servingFunction(synth: SynthesizedStack, source: Source): FunctionKey | null {
  const { stack, template } = synth;
  const resources: Record<string, Json> = template.toJSON().Resources;
  const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);
  switch (source.kind) {
    case 'route': {
      const [, route] = ofType('AWS::ApiGatewayV2::Route').find(([, r]) => r.Properties.RouteKey === source.routeKey) ?? [];
      if (!route) throw new Error(`the API has no route ${source.routeKey}`);
      const integrationId = route.Properties.Target['Fn::Join'][1][1].Ref;
      return functionOfLogicalId(synth, referencedId(resources[integrationId].Properties.IntegrationUri));
    }
    case 'queue': {
      const queue = source.queue === 'notificationQueue' ? stack.notifications.queue : stack.scheduling[source.queue];
      const queueArn = JSON.stringify(arnOf(stack, queue));
      const mappings = ofType('AWS::Lambda::EventSourceMapping').filter(
        ([, m]) => JSON.stringify(m.Properties.EventSourceArn) === queueArn,
      );
      expect(mappings, `one consumer of ${source.queue}`).toHaveLength(1);
      return functionOfLogicalId(synth, referencedId(mappings[0][1].Properties.FunctionName));
    }
    case 'artifact object created': {
      const bucket = resources[logicalId(stack, stack.artifacts.bucket)];
      const targets = bucket.Properties.NotificationConfiguration.LambdaConfigurations as Json[];
      expect(targets.map((target) => target.Event)).toEqual(['s3:ObjectCreated:*']);
      return functionOfLogicalId(synth, referencedId(targets[0].Function));
    }
    case 'nightly reconcile': {
      const rules = ofType('AWS::Events::Rule').filter(([id]) => id.startsWith('NightlyReconcile'));
      expect(rules).toHaveLength(1);
      return functionOfLogicalId(synth, referencedId(rules[0][1].Properties.Targets[0].Arn));
    }
    case 'hourly digest flush': {
      const rules = ofType('AWS::Events::Rule').filter(([id]) => id.startsWith('NotificationsDigestFlush'));
      expect(rules).toHaveLength(1);
      return functionOfLogicalId(synth, referencedId(rules[0][1].Properties.Targets[0].Arn));
    }
    case 'backfill invocation':
      // Invoked by hand (docs/backfill.md); only a stack with the backfill block has it.
      return stack.backfill ? 'backfill' : null;
    case 'EventBridge Scheduler':
    case 'local only':
      return null;
  }
}

interface Grant {
  table: Set<string>;
  /** `Query on index GSI1` and the like. */
  indexes: Set<string>;
}

/** The DynamoDB actions the function's role allows on the table and on each index. */
function grantOf(synth: SynthesizedStack, fn: FunctionKey): Grant {
  const { stack, template } = synth;
  const role = fn === 'backfill' ? stack.backfill!.fn.role : stack.functions[fn]!.role;
  const table = JSON.stringify(arnOf(stack, stack.storage.table));
  const grant: Grant = { table: new Set(), indexes: new Set() };
  for (const statement of statementsOfRole(template, logicalId(stack, role))) {
    if (statement.Effect !== 'Allow') continue;
    const actions = statement.Action.filter((action) => action.startsWith('dynamodb:')).map((action) => action.slice('dynamodb:'.length));
    for (const resource of statement.Resource) {
      const text = JSON.stringify(resource);
      const index = /\/index\/([A-Za-z0-9_.-]+)"/.exec(text)?.[1];
      for (const action of actions) {
        if (text === table) grant.table.add(action);
        else if (index !== undefined && text.includes(table)) grant.indexes.add(`${action} on index ${index}`);
        else throw new Error(`${fn} has dynamodb:${action} on ${text}, which is neither the table nor one of its indexes`);
      }
    }
  }
  return grant;
}

const needOf = (call: RecordedCall) => (call.index === null ? call.action : `${call.action} on index ${call.index}`);

// ---- driving the local runtime ----------------------------------------------------------------

describe('DynamoDB commands per function against the IAM grants of the synthesized stack', () => {
  const calls: RecordedCall[] = [];
  let source: Source | null = { kind: 'local only', what: 'start-up (re-arm triggers, requeue unfinished jobs)' };
  let step = 'start-up';
  let service: TestService;
  let admin: string;
  const drivenRoutes = new Set<string>();

  /** Runs `work` as `what` serving: every DynamoDB command it issues is attributed to it. */
  async function serving<T>(what: Source, label: string, work: () => Promise<T>): Promise<T> {
    source = what;
    step = label;
    try {
      return await work();
    } finally {
      source = null;
      step = '';
    }
  }

  async function api(method: NonNullable<ApiCall['method']>, path: string, options: ApiCall = {}): Promise<ApiReply> {
    const routeKey = routeKeyFor(method, path);
    drivenRoutes.add(routeKey);
    return serving({ kind: 'route', routeKey }, routeKey, () => service.call(path, { method, token: admin, ...options }));
  }

  async function expectStatus(reply: Promise<ApiReply>, status: number): Promise<any> {
    const { status: got, body } = await reply;
    expect(got, JSON.stringify(body)).toBe(status);
    return body;
  }

  beforeAll(async () => {
    const runner = new ScriptedRunner();
    runner.behaviour = async (_input, call) => ({
      findings: Array.from({ length: 30 }, (_, i) => finding(i + (call % 2) * 15, { evidence: { i } })),
      // An inventory output: kept as an artifact (PutItem), compared with the target's previous one (GSI3).
      outputs: [
        {
          name: 'sbom',
          purpose: 'sbom',
          contentType: 'application/vnd.cyclonedx+json',
          document: { bomFormat: 'CycloneDX', specVersion: '1.6', components: [{ purl: `pkg:npm/grant@${call}.0.0` }] },
        },
      ],
    });
    service = await startTestService({
      quota: QUOTA,
      runners: new Map([
        ['email_security', runner],
        ['secret_scan', runner],
        ['vm', runner],
      ]),
      beforeDynamoCall: (command, input) => {
        const { IndexName } = (input ?? {}) as { IndexName?: string };
        calls.push({ source, step, action: command.replace(/Command$/, ''), index: IndexName ?? null });
      },
    });
    source = null;
    admin = await service.token(tenant, 'admin');
    const { runtime, clock } = service;

    // -- the schedules function: create (and past the quota), list with filters and cursors, get, patch, toggle, delete
    const daily = await expectStatus(api('POST', '/api/scans/schedules/', { body: scheduleBody() }), 201);
    const everyFive = await expectStatus(
      api('POST', '/api/scans/schedules/', { body: scheduleBody({ cadence: 'custom', cron_expression: '*/5 * * * *' }) }),
      201,
    );
    const paused = await expectStatus(api('POST', '/api/scans/schedules/', { body: scheduleBody({ enabled: false }) }), 201);
    await expectStatus(
      api('POST', '/api/scans/schedules/', { body: scheduleBody({ cadence: 'custom', cron_expression: '0 0 1,15 * 1' }) }),
      201,
    );
    const doomed = await expectStatus(
      api('POST', '/api/scans/schedules/', { body: scheduleBody({ cadence: 'custom', cron_expression: '*/5 * * * *' }) }),
      201,
    );
    const deleted = await expectStatus(api('POST', '/api/scans/schedules/', { body: scheduleBody() }), 201);
    await expectStatus(api('POST', '/api/scans/schedules/', { body: scheduleBody() }), 409);
    // The scope's artifact ids are read from the artifact rows (GetItem) before anything is written.
    await expectStatus(
      api('POST', '/api/scans/schedules/', { body: scheduleBody({ scope: { rua: ['art_01HZ00000000000000000000ZZ'] } }) }),
      400,
    );
    const firstPage = await expectStatus(api('GET', '/api/scans/schedules/?limit=2'), 200);
    await expectStatus(api('GET', `/api/scans/schedules/?limit=2&cursor=${firstPage.next_cursor}`), 200);
    await expectStatus(api('GET', '/api/scans/schedules/?cursor=bm90LWEtY3Vyc29y'), 400);
    const byType = await expectStatus(api('GET', '/api/scans/schedules/?scan_type=email_security&enabled=true&limit=1'), 200);
    await expectStatus(api('GET', `/api/scans/schedules/?scan_type=email_security&enabled=true&limit=1&cursor=${byType.next_cursor}`), 200);
    const enabledOnly = await expectStatus(api('GET', '/api/scans/schedules/?enabled=true&limit=1'), 200);
    await expectStatus(api('GET', `/api/scans/schedules/?enabled=true&limit=1&cursor=${enabledOnly.next_cursor}`), 200);
    await expectStatus(api('GET', `/api/scans/schedules/${daily.id}/`), 200);
    await expectStatus(api('GET', '/api/scans/schedules/sch_01HZ0000000000000000000000/'), 404);
    await expectStatus(api('PATCH', `/api/scans/schedules/${daily.id}/`, { body: { name: 'renamed', cadence: 'weekly' } }), 200);
    await expectStatus(api('PATCH', '/api/scans/schedules/sch_01HZ0000000000000000000000/', { body: { name: 'x' } }), 404);
    await expectStatus(api('POST', `/api/scans/schedules/${paused.id}/toggle/`), 200);
    await expectStatus(api('POST', `/api/scans/schedules/${paused.id}/toggle/`), 200);
    await expectStatus(api('DELETE', `/api/scans/schedules/${deleted.id}/`), 204);
    await expectStatus(api('DELETE', `/api/scans/schedules/${deleted.id}/`), 404);

    // -- notification rules (the schedules function): create, refused, list, get, patch, test, delete
    const hook = { name: 'hook', kind: 'webhook', url: 'https://hooks.example.com/x', events: ['issue.opened'] };
    const rule = await expectStatus(api('POST', '/api/notifications/', { body: hook }), 201);
    await expectStatus(api('POST', '/api/notifications/', { body: { ...hook, url: 'https://10.0.0.1/' } }), 400);
    // The test delivery of an email rule goes to the local outbox: no request leaves the machine.
    const mail = await expectStatus(
      api('POST', '/api/notifications/', { body: { name: 'mail', kind: 'email', address: 'a@example.com', events: ['scan.finished'] } }),
      201,
    );
    // A digest rule: the notifier writes its events' entries at fan-out, and the hourly flush reads and deletes them.
    await expectStatus(
      api('POST', '/api/notifications/', {
        body: { name: 'digest', kind: 'email', address: 'a@example.com', events: ['scan.finished'], delivery: 'digest_hourly' },
      }),
      201,
    );
    await expectStatus(api('GET', '/api/notifications/'), 200);
    await expectStatus(api('GET', `/api/notifications/${rule.id}/`), 200);
    await expectStatus(api('GET', '/api/notifications/ntf_01HZ0000000000000000000000/'), 404);
    await expectStatus(api('PATCH', `/api/notifications/${rule.id}/`, { body: { enabled: false } }), 200);
    await expectStatus(api('PATCH', '/api/notifications/ntf_01HZ0000000000000000000000/', { body: { enabled: false } }), 404);
    await expectStatus(api('POST', `/api/notifications/${mail.id}/test/`), 200);
    await expectStatus(api('DELETE', `/api/notifications/${rule.id}/`), 204);
    await expectStatus(api('DELETE', `/api/notifications/${rule.id}/`), 404);

    // -- credentials (the schedules function): create, conflict, refused, list, get, rotate, delete;
    // a manual scan naming one (the scans function reads it), which dispatch opens and touches
    const credential = { alias: 'ci-bot', kind: 'git_token', secret: { token: 'ghp_grants' }, allowed_hosts: ['git.example.com'] };
    await expectStatus(api('POST', '/api/credentials/', { body: credential }), 201);
    await expectStatus(api('POST', '/api/credentials/', { body: credential }), 409);
    await expectStatus(api('POST', '/api/credentials/', { body: { ...credential, alias: 'spare' } }), 201);
    await expectStatus(api('POST', '/api/credentials/', { body: { ...credential, allowed_hosts: ['10.0.0.1'] } }), 400);
    await expectStatus(api('GET', '/api/credentials/'), 200);
    await expectStatus(api('GET', '/api/credentials/ci-bot/'), 200);
    await expectStatus(api('GET', '/api/credentials/missing/'), 404);
    await expectStatus(api('PATCH', '/api/credentials/ci-bot/', { body: { secret: { token: 'ghp_rotated' } } }), 200);
    await expectStatus(api('PATCH', '/api/credentials/missing/', { body: { description: 'x' } }), 404);
    await expectStatus(api('DELETE', '/api/credentials/spare/'), 204);
    await expectStatus(api('DELETE', '/api/credentials/spare/'), 404);
    await expectStatus(
      api('POST', '/api/scans/', {
        body: { scan_type: 'secret_scan', target: 'https://git.example.com/acme/app.git', scope: { credential: 'ci-bot' } },
      }),
      202,
    );

    // -- the scans function: run now, manual scans, artifacts
    await expectStatus(api('POST', `/api/scans/schedules/${daily.id}/run/`), 202);
    await expectStatus(api('POST', '/api/scans/schedules/sch_01HZ0000000000000000000000/run/'), 404);
    await expectStatus(api('POST', '/api/scans/', { body: { scan_type: 'email_security', target: 'example.org' } }), 202);
    const rua = await expectStatus(
      api('POST', '/api/artifacts/', {
        body: { purpose: 'rua', filename: 'google.xml', size: REPORT.length, content_type: 'application/xml' },
      }),
      201,
    );
    const junk = await expectStatus(
      api('POST', '/api/artifacts/', { body: { purpose: 'rua', filename: 'junk.xml', size: 5, content_type: 'application/xml' } }),
      201,
    );
    await expectStatus(
      api('POST', '/api/scans/', { body: { scan_type: 'email_security', target: 'example.org', scope: { rua: [rua.id] } } }),
      400,
    );

    // -- the artifact check: S3 invokes it for each created object; the bytes are put as S3 would hold them
    await writeFile(await ensureArtifactDir(runtime.artifactStore, tenant, rua.id), REPORT);
    await writeFile(await ensureArtifactDir(runtime.artifactStore, tenant, junk.id), 'junk!');
    await serving({ kind: 'artifact object created' }, 'check a good report', () => runtime.artifacts.check(tenant, rua.id));
    await serving({ kind: 'artifact object created' }, 'check junk', () => runtime.artifacts.check(tenant, junk.id));
    await serving({ kind: 'artifact object created' }, 'check again', () => runtime.artifacts.check(tenant, rua.id));
    await expectStatus(api('GET', `/api/artifacts/${rua.id}/`), 200);
    await expectStatus(api('GET', '/api/artifacts/art_01HZ0000000000000000000000/'), 404);
    await expectStatus(
      api('POST', '/api/scans/', { body: { scan_type: 'email_security', target: 'example.org', scope: { rua: [rua.id] } } }),
      202,
    );

    // -- dispatch (the scan queue's consumer): fires, a redelivered fire, a fire of a deleted
    // schedule, scan messages from the API, adversary steps
    clock.advance(FIVE_MINUTES);
    await serving({ kind: 'EventBridge Scheduler' }, 'fires are due', () => runtime.scheduler.runDue());
    await expectStatus(api('DELETE', `/api/scans/schedules/${doomed.id}/`), 204);
    const [fire] = runtime.scanQueue.receive(1);
    runtime.scanQueue.sendRaw(fire.body);
    runtime.scanQueue.changeVisibility(fire.receiptHandle, 0);
    await runtime.scanQueue.send({
      kind: 'adversary',
      tenant,
      run_id: 'run-1',
      step_id: 'recon-1',
      technique: 'T1598',
      target: 'example.net',
    });
    await runtime.scanQueue.send({
      kind: 'adversary',
      tenant,
      run_id: 'run-1',
      step_id: 'phish-1',
      technique: 'T1566',
      target: 'example.net',
    });
    await serving({ kind: 'queue', queue: 'scanQueue' }, 'first fires and queued scans', () => runtime.consumer.drain());
    clock.advance(FIVE_MINUTES);
    await serving({ kind: 'EventBridge Scheduler' }, 'the next fire is due', () => runtime.scheduler.runDue());
    await serving({ kind: 'queue', queue: 'scanQueue' }, 'a fire of known findings', () => runtime.consumer.drain());

    // -- the notifier (the notification queue's consumer): the scans' events fanned out to the
    // email rule (a Query of the tenant's rules), and each delivery (its rule's GetItem) to the outbox
    await serving({ kind: 'queue', queue: 'notificationQueue' }, 'events and their deliveries', () => runtime.notifier.drain());
    // -- the notifier again, invoked by the hourly schedule: the digest rule's entries of the hour, sent and deleted
    clock.advance(2 * 3_600_000);
    const flushed = await serving({ kind: 'hourly digest flush' }, 'the digests due', () => runtime.digestTicker.tick());
    expect(flushed?.sent).toBeGreaterThan(0);

    // -- the scans function again: reads with every filter and a cursor
    const scans = await expectStatus(api('GET', '/api/scans/?limit=1'), 200);
    await expectStatus(api('GET', `/api/scans/?limit=1&cursor=${scans.next_cursor}`), 200);
    await expectStatus(api('GET', '/api/scans/?scan_type=email_security&status=succeeded'), 200);
    await expectStatus(api('GET', `/api/scans/?schedule_id=${everyFive.id}&limit=1`), 200);
    await expectStatus(api('GET', '/api/scans/?source_type=adversary'), 200);
    await expectStatus(api('GET', `/api/scans/${scans.items[0].id}/`), 200);
    await expectStatus(api('GET', `/api/scans/${scans.items[0].id}/log/`), 200);
    await expectStatus(api('GET', '/api/scans/scan_01HZ0000000000000000000000/'), 404);
    const findings = await expectStatus(api('GET', '/api/findings/?limit=5'), 200);
    await expectStatus(api('GET', `/api/findings/?limit=5&cursor=${findings.next_cursor}`), 200);
    await expectStatus(api('GET', `/api/findings/?scan_id=${findings.items[0].scan_id}&severity=high`), 200);
    await expectStatus(api('GET', '/api/findings/?rule_id=test.rule_1&target=example.com'), 200);
    // -- issues: every listing index (status, target, rule), a cursor, one issue, triage, export, changes
    const issues = await expectStatus(api('GET', '/api/issues/?limit=1'), 200);
    await expectStatus(api('GET', `/api/issues/?limit=1&cursor=${issues.next_cursor}`), 200);
    await expectStatus(api('GET', '/api/issues/?status=open&severity=high'), 200);
    await expectStatus(api('GET', '/api/issues/?target=Example.com&scan_type=email_security'), 200);
    await expectStatus(api('GET', '/api/issues/?rule_id=test.rule'), 200);
    await expectStatus(api('GET', '/api/issues/rules/'), 200);
    // -- the SLA: its read and its write, then the overdue listing (one GetItem, then the status partitions)
    await expectStatus(api('GET', '/api/settings/sla'), 200);
    await expectStatus(api('PUT', '/api/settings/sla', { body: { critical: 7, high: 30, medium: 90, low: 180, info: null } }), 200);
    await expectStatus(api('GET', '/api/issues/?overdue=true'), 200);
    await expectStatus(api('GET', `/api/issues/${issues.items[0].id}/`), 200);
    await expectStatus(
      api('PATCH', `/api/issues/${issues.items[0].id}/`, { body: { status: 'false_positive', reason: 'grant test' } }),
      200,
    );
    const recent = await expectStatus(api('GET', '/api/scans/?limit=50'), 200);
    const opening = recent.items.find((scan: { changes: { new: number } | null }) => (scan.changes?.new ?? 0) > 0);
    await expectStatus(api('GET', `/api/scans/${opening.id}/changes/`), 200);
    const inventoried = recent.items.find((scan: { outputs?: unknown[] }) => (scan.outputs?.length ?? 0) > 0);
    const sbomKey = routeKeyFor('GET', '/api/scans/{id}/sbom/');
    drivenRoutes.add(sbomKey);
    const sbom = await serving({ kind: 'route', routeKey: sbomKey }, sbomKey, () =>
      fetch(`${service.runtime.url}/api/scans/${inventoried.id}/sbom/`, { headers: { authorization: `Bearer ${admin}` } }),
    );
    expect(sbom.status).toBe(200);
    const exportKey = routeKeyFor('GET', '/api/issues/export.csv');
    drivenRoutes.add(exportKey);
    const csv = await serving({ kind: 'route', routeKey: exportKey }, exportKey, () =>
      fetch(`${service.runtime.url}/api/issues/export.csv`, { headers: { authorization: `Bearer ${admin}` } }),
    );
    expect(csv.status).toBe(200);

    // -- the dead-letter function: a scan and a fire that exhausted their receives
    await expectStatus(api('POST', `/api/scans/schedules/${everyFive.id}/run/`), 202);
    clock.advance(FIVE_MINUTES);
    await serving({ kind: 'EventBridge Scheduler' }, 'a fire that will not run', () => runtime.scheduler.runDue());
    for (const message of runtime.scanQueue.receive(10)) {
      runtime.deadLetterQueue.sendRaw(message.body);
      runtime.scanQueue.delete(message.receiptHandle);
    }
    await serving({ kind: 'queue', queue: 'scanDeadLetterQueue' }, 'dead letters', () => runtime.deadLetterConsumer.drain());

    // -- reconcile: nightly repair of all tenants, a dry run, one tenant by hand; a trigger gone, and
    // a finished job a crash kept from its schedule (reconcile records it)
    await runtime.scheduler.sync(tenant, daily.id, null);
    const dailyRow = (await serving({ kind: 'local only', what: 'the test reads a row' }, 'row', () =>
      runtime.repo.get(tenant, daily.id),
    ))!;
    const unrecorded = jobForSchedule(dailyRow, {
      id: makeUlidGenerator(() => clock.now().getTime()).newId('scan'),
      trigger: 'run_now',
      scheduled_time: clock.now().toISOString(),
      created_at: clock.now().toISOString(),
      log: { file: 'unused' },
    });
    await serving({ kind: 'local only', what: 'a worker died before telling the schedule' }, 'finished job', () =>
      runtime.scans.create({ ...unrecorded, status: 'succeeded', finished_at: clock.now().toISOString() }),
    );
    await serving({ kind: 'nightly reconcile' }, 'dry run', () => runtime.reconciler.reconcile({ dryRun: true }));
    await serving({ kind: 'nightly reconcile' }, 'repair all', () => runtime.reconciler.reconcile({ dryRun: false }));
    await serving({ kind: 'nightly reconcile' }, 'one tenant', () => runtime.reconciler.reconcile({ dryRun: false, tenant }));

    // -- the backfill function (its Lambda runs `run`; rollback is the CLI's only)
    const legacy = new InMemoryLegacySource().add('legacy-co', [legacyRow(1), legacyRow(2), { ...legacyRow(3), task: null }]);
    const backfill = makeBackfillService({
      source: legacy,
      markers: runtime.legacyMarkers,
      schedules: runtime.schedules,
      clock,
      ids: makeUlidGenerator(() => clock.now().getTime()),
      logger: silentLogger,
    });
    await serving({ kind: 'backfill invocation' }, 'dry run', () => backfill.run({ dryRun: true }));
    await serving({ kind: 'backfill invocation' }, 'migrate', () => backfill.run({ dryRun: false }));
    await serving({ kind: 'backfill invocation' }, 'migrate again', () => backfill.run({ dryRun: false }));

    // -- the meta function: no table access at all
    await expectStatus(api('GET', '/api/scan-types/'), 200);
    await expectStatus(api('GET', '/api/me'), 200);
    await expectStatus(api('GET', '/api/health', { token: null }), 200);
    await expectStatus(api('GET', '/api/openapi.json', { token: null }), 200);
    await expectStatus(api('POST', '/api/session', { headers: { origin: runtime.url } }), 204);
    // A sign-in link's one-time code (issue 41 item 7): spent without the table (the code store is a file under npm start).
    const code = new URL(await runtime.signInUrl()).hash.slice('#code='.length);
    await expectStatus(api('POST', '/api/session/code', { token: null, body: { code }, headers: { origin: runtime.url } }), 204);
    await expectStatus(api('DELETE', '/api/session', { token: null, headers: { origin: runtime.url } }), 204);
  }, 120_000);

  afterAll(() => service?.stop());

  it('drives every route of the API', () => {
    expect([...drivenRoutes].sort()).toEqual([...new Set(routes.map((route) => routeKeyOf(route.method, route.path)))].sort());
  });

  it('attributes every DynamoDB command to what was being served', () => {
    expect(calls.filter((call) => call.source === null)).toEqual([]);
    expect(calls.filter((call) => call.source?.kind === 'EventBridge Scheduler')).toEqual([]);
  });

  describe.each(environments)('ScanService-%s', (env) => {
    const synth = synthesizedStack(env);
    checkGrants(synth, env);
  });

  describe('ScanService-dev with the backfill block', () => {
    const synth = synthesizedStackWithBackfill();
    checkGrants(synth, 'dev+backfill');
  });

  function used(synth: SynthesizedStack): Map<FunctionKey, RecordedCall[]> {
    const byFunction = new Map<FunctionKey, RecordedCall[]>();
    for (const call of calls) {
      const fn = call.source === null ? null : servingFunction(synth, call.source);
      if (fn !== null) byFunction.set(fn, [...(byFunction.get(fn) ?? []), call]);
      // Every resource class's scan queue has a dispatch function running the same code (locally
      // there is one queue): what the scan queue's consumer calls, each class's consumer calls.
      if (call.source?.kind === 'queue' && call.source.queue === 'scanQueue') {
        for (const consumer of classConsumers(synth)) byFunction.set(consumer, [...(byFunction.get(consumer) ?? []), call]);
      }
    }
    return byFunction;
  }

  /** The consumers of the scan queues of the classes other than standard (docs/resource-classes.md). */
  function classConsumers(synth: SynthesizedStack): FunctionKey[] {
    const { stack, template } = synth;
    const mappings = Object.values<Json>(template.findResources('AWS::Lambda::EventSourceMapping'));
    return [...stack.scheduling.classQueues]
      .filter(([name]) => name !== 'standard')
      .map(([, { queue }]) => {
        const arn = JSON.stringify(arnOf(stack, queue));
        const found = mappings.filter((m) => JSON.stringify(m.Properties.EventSourceArn) === arn);
        expect(found).toHaveLength(1);
        return functionOfLogicalId(synth, referencedId(found[0].Properties.FunctionName));
      });
  }

  function checkGrants(synth: SynthesizedStack, name: string): void {
    it('issues no DynamoDB command outside the grant of the function that issues it', () => {
      const refused: string[] = [];
      for (const [fn, made] of used(synth)) {
        const grant = grantOf(synth, fn);
        for (const call of made) {
          const need = needOf(call);
          if (!(call.index === null ? grant.table.has(call.action) : grant.indexes.has(need))) {
            refused.push(`${fn}: dynamodb:${need} (while serving ${call.step})`);
          }
        }
      }
      expect([...new Set(refused)], `${name}: commands the function's role does not allow`).toEqual([]);
    });

    it('exercises each function that has a table grant, and uses its grant except the actions listed as unused', () => {
      const byFunction = used(synth);
      const unused: Record<string, string[]> = {};
      for (const [fn] of functionsOf(synth.stack)) {
        const grant = grantOf(synth, fn);
        const granted = [...grant.table, ...grant.indexes];
        if (granted.length === 0) {
          expect(byFunction.get(fn) ?? [], `${fn} has no table grant and must make no DynamoDB call`).toEqual([]);
          continue;
        }
        const needs = new Set((byFunction.get(fn) ?? []).map(needOf));
        const idle = granted.filter((action) => !needs.has(action)).sort();
        if (idle.length > 0) unused[fn] = idle;
      }
      expect(unused, `${name}: granted actions nothing used`).toEqual(
        Object.fromEntries(
          Object.entries(GRANTED_BUT_UNUSED)
            .filter(([fn]) => functionsOf(synth.stack).some(([present]) => present === fn))
            .map(([fn, { actions }]) => [fn, [...actions].sort()]),
        ),
      );
    });
  }
});
