import { CreateScheduleGroupCommand, GetScheduleCommand, SchedulerClient, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EventBridgeTriggerScheduler } from '../../shared/adapters/eventbridge/eventbridge-trigger-scheduler.ts';
import { makeArtifactReferences } from '../../shared/services/artifact-references.ts';
import { makeReconcileService } from '../../shared/services/reconcile-service.ts';
import { makeScheduleService } from '../../shared/services/schedule-service.ts';
import { InMemoryArtifactRepository } from '../fakes/in-memory-artifact-repository.ts';
import { InMemoryScheduleRepository } from '../fakes/in-memory-schedule-repository.ts';
import { ManualClock } from '../fakes/manual-clock.ts';
import { silentLogger } from '../fakes/silent-logger.ts';
import { startMotoServer, type MotoServer } from '../helpers/moto-server.ts';
import { describeTriggerSchedulerContract } from './trigger-scheduler-contract.ts';

const GROUP = 'scan-service-test';

let moto: MotoServer;
beforeAll(async () => {
  moto = await startMotoServer();
});
afterAll(async () => {
  await moto.close();
});

/**
 * A Scheduler client on moto that counts the calls it sends, by operation. The count is taken in
 * the SDK's middleware stack, so a retried call counts each attempt.
 */
function countingClient(): { client: SchedulerClient; calls: Map<string, number>; total: () => number } {
  const client = new SchedulerClient({ ...moto.clientConfig, maxAttempts: 1 });
  const calls = new Map<string, number>();
  client.middlewareStack.add(
    (next, context) => (args) => {
      const operation = (context.commandName ?? 'unknown').replace(/Command$/, '');
      calls.set(operation, (calls.get(operation) ?? 0) + 1);
      return next(args);
    },
    { step: 'finalizeRequest', name: 'countSchedulerCalls' },
  );
  return { client, calls, total: () => [...calls.values()].reduce((sum, n) => sum + n, 0) };
}

/** An empty account (moto reset) with the environment's schedule group, and an adapter on it. */
async function freshScheduler(client: SchedulerClient): Promise<EventBridgeTriggerScheduler> {
  await moto.reset();
  await client.send(new CreateScheduleGroupCommand({ Name: GROUP }));
  const arn = (kind: string, name: string) => `arn:aws:${kind}:${moto.region}:${moto.accountId}:${name}`;
  return new EventBridgeTriggerScheduler({
    client,
    groupName: GROUP,
    queueArn: arn('sqs', 'scan-queue'),
    roleArn: `arn:aws:iam::${moto.accountId}:role/scheduler`,
    deadLetterArn: arn('sqs', 'fire-dlq'),
    sleep: async () => {},
  });
}

describeTriggerSchedulerContract('EventBridgeTriggerScheduler on moto', async () => {
  const { client } = countingClient();
  return { scheduler: await freshScheduler(client), cleanup: async () => client.destroy() };
});

describe('EventBridge Scheduler calls per schedule write (through the schedule service, on moto)', () => {
  let counted: ReturnType<typeof countingClient>;
  let scheduler: EventBridgeTriggerScheduler;
  let service: ReturnType<typeof makeScheduleService>;
  let repo: InMemoryScheduleRepository;

  beforeEach(async () => {
    counted = countingClient();
    scheduler = await freshScheduler(counted.client);
    const clock = new ManualClock('2026-03-02T10:00:00Z');
    repo = new InMemoryScheduleRepository();
    let n = 0;
    service = makeScheduleService({
      repo,
      triggers: scheduler,
      clock,
      ids: { newId: (prefix: string) => `${prefix}_${String(++n).padStart(26, '0')}`, forFire: () => 'scan_unused' },
      logger: silentLogger,
      quota: 10,
      artifacts: makeArtifactReferences(new InMemoryArtifactRepository(), clock),
    });
  });

  const daily = { name: 'n', scan_type: 'email_security', target: 'example.com', cadence: 'daily' } as const;
  const split = { cadence: 'custom', cron_expression: '0 0 1,15 * 1' } as const;

  /** The Scheduler calls `write` makes, by operation. */
  async function callsOf(write: () => Promise<unknown>): Promise<Record<string, number>> {
    counted.calls.clear();
    await write();
    return Object.fromEntries(counted.calls);
  }

  const names = async () => (await scheduler.list()).map((trigger) => `${trigger.name} ${trigger.expression}`);

  it('creates an enabled schedule with one call, and a disabled one with none', async () => {
    let id = '';
    const enabled = await callsOf(async () => (id = (await service.create('acme', daily)).id));
    const disabled = await callsOf(() => service.create('acme', { ...daily, enabled: false }));

    expect(enabled).toEqual({ CreateSchedule: 1 });
    expect(disabled).toEqual({});
    expect(await names()).toEqual([`${id} cron(0 2 * * ? *)`]);
  });

  it('patches the cadence with one update, and other fields with no call', async () => {
    const { id } = await service.create('acme', daily);

    const cadence = await callsOf(() => service.update('acme', id, { cadence: 'weekly' }));
    const rename = await callsOf(() => service.update('acme', id, { name: 'renamed', description: 'd' }));

    expect(cadence).toEqual({ UpdateSchedule: 1 });
    expect(rename).toEqual({});
    expect(await names()).toEqual([`${id} cron(0 3 ? * MON *)`]);
  });

  it('toggles with one call each way', async () => {
    const { id } = await service.create('acme', daily);

    const off = await callsOf(() => service.toggle('acme', id));
    const offTriggers = await names();
    const on = await callsOf(() => service.toggle('acme', id));

    expect(off).toEqual({ DeleteSchedule: 1 });
    expect(offTriggers).toEqual([]);
    expect(on).toEqual({ CreateSchedule: 1 });
    expect(await names()).toEqual([`${id} cron(0 2 * * ? *)`]);
  });

  it('deletes with one call', async () => {
    const { id } = await service.create('acme', daily);

    const removed = await callsOf(() => service.remove('acme', id));

    expect(removed).toEqual({ DeleteSchedule: 1 });
    expect(await names()).toEqual([]);
  });

  it('changes shape with one call per name that appears or goes, and a split rule in place with two', async () => {
    const { id } = await service.create('acme', daily);

    const toSplit = await callsOf(() => service.update('acme', id, split));
    const splitTriggers = await names();
    const splitChanged = await callsOf(() => service.update('acme', id, { cron_expression: '0 6 1,15 * 2' }));
    const back = await callsOf(() => service.update('acme', id, { cadence: 'daily' }));

    // DESIGN §5 names a split rule's triggers -dom and -dow, so going split creates two names and deletes one.
    expect(toSplit).toEqual({ CreateSchedule: 2, DeleteSchedule: 1 });
    expect(splitTriggers).toEqual([`${id}-dom cron(0 0 1,15 * ? *)`, `${id}-dow cron(0 0 ? * MON *)`]);
    expect(splitChanged).toEqual({ UpdateSchedule: 2 });
    expect(back).toEqual({ CreateSchedule: 1, DeleteSchedule: 2 });
    expect(await names()).toEqual([`${id} cron(0 2 * * ? *)`]);
  });

  it('still reaches the row when the scheduler holds something other than the previous row said', async () => {
    const { id } = await service.create('acme', daily);
    await scheduler.sync('acme', id, null);

    // The hinted path updates a name that is gone: the update's 404 turns into a create.
    const patched = await callsOf(() => service.update('acme', id, { cadence: 'monthly' }));

    expect(patched).toEqual({ UpdateSchedule: 1, CreateSchedule: 1 });
    expect(await names()).toEqual([`${id} cron(0 4 1 * ? *)`]);
  });

  it('lists the group once per reconcile run', async () => {
    const { id } = await service.create('acme', daily);
    await service.create('acme', { ...daily, ...split });
    await scheduler.sync('acme', id, null);
    const reconciler = makeReconcileService({ repo, triggers: scheduler, unrecognised: scheduler, logger: silentLogger });

    const run = await callsOf(() => reconciler.reconcile({ dryRun: true }));

    // One ListSchedules page, one GetSchedule per schedule in the group (its expression and target input).
    expect(run).toEqual({ ListSchedules: 1, GetSchedule: 2 });
  });
});

describe('resource classes: each schedule targets its scan type’s class queue (DESIGN §11, on moto)', () => {
  const arn = (name: string) => `arn:aws:sqs:${moto.region}:${moto.accountId}:${name}`;
  let client: SchedulerClient;
  let scheduler: EventBridgeTriggerScheduler;
  let service: ReturnType<typeof makeScheduleService>;
  let repo: InMemoryScheduleRepository;

  beforeEach(async () => {
    client = new SchedulerClient({ ...moto.clientConfig, maxAttempts: 1 });
    await moto.reset();
    await client.send(new CreateScheduleGroupCommand({ Name: GROUP }));
    scheduler = new EventBridgeTriggerScheduler({
      client,
      groupName: GROUP,
      queueArn: arn('scan-queue'),
      classQueueArns: { long: arn('long-scan-queue') },
      roleArn: `arn:aws:iam::${moto.accountId}:role/scheduler`,
      deadLetterArn: arn('fire-dlq'),
      sleep: async () => {},
    });
    const clock = new ManualClock('2026-03-02T10:00:00Z');
    repo = new InMemoryScheduleRepository();
    let n = 0;
    service = makeScheduleService({
      repo,
      triggers: scheduler,
      clock,
      ids: { newId: (prefix: string) => `${prefix}_${String(++n).padStart(26, '0')}`, forFire: () => 'scan_unused' },
      logger: silentLogger,
      quota: 10,
      artifacts: makeArtifactReferences(new InMemoryArtifactRepository(), clock),
    });
  });
  afterEach(() => client.destroy());

  const targetOf = async (name: string) => (await client.send(new GetScheduleCommand({ Name: name, GroupName: GROUP }))).Target!.Arn;
  const mail = { name: 'mail', scan_type: 'email_security', target: 'example.com', cadence: 'daily' } as const;
  // llmscan's manifest names the long class.
  const llm = { name: 'llm', scan_type: 'ai_red_team', target: 'https://llm.example.com/v1/chat/completions', cadence: 'daily' } as const;

  it('creates a standard type’s trigger on the standard queue and a long type’s on the long queue', async () => {
    const standard = await service.create('acme', mail);
    const long = await service.create('acme', llm);

    expect(await targetOf(standard.id)).toBe(arn('scan-queue'));
    expect(await targetOf(long.id)).toBe(arn('long-scan-queue'));
    expect((await scheduler.list()).map((trigger) => [trigger.scheduleId, trigger.queue])).toEqual([
      [standard.id, 'standard'],
      [long.id, 'long'],
    ]);
  });

  it('moves the trigger to the long queue when a patch changes the type to a long one', async () => {
    const { id } = await service.create('acme', mail);
    await service.update('acme', id, { scan_type: 'ai_red_team', target: llm.target });

    expect(await targetOf(id)).toBe(arn('long-scan-queue'));
  });

  it('treats a trigger on the wrong class queue as drift: reported by a dry run, repaired by a run', async () => {
    const long = await service.create('acme', llm);
    const standard = await service.create('acme', mail);
    // Drift: the long schedule's trigger fires into the standard queue (an old deploy, a hand edit).
    const stored = await client.send(new GetScheduleCommand({ Name: long.id, GroupName: GROUP }));
    await client.send(
      new UpdateScheduleCommand({
        Name: long.id,
        GroupName: GROUP,
        ScheduleExpression: stored.ScheduleExpression,
        FlexibleTimeWindow: stored.FlexibleTimeWindow,
        Target: { ...stored.Target!, Arn: arn('scan-queue') },
      }),
    );
    const reconciler = makeReconcileService({ repo, triggers: scheduler, unrecognised: scheduler, logger: silentLogger });

    const dry = await reconciler.reconcile({ dryRun: true });
    expect(dry.actions).toEqual([
      {
        kind: 'update',
        tenant: 'acme',
        schedule_id: long.id,
        reason: 'the trigger targets the standard scan queue; ai_red_team runs in the long class',
      },
    ]);
    expect(await targetOf(long.id)).toBe(arn('scan-queue'));

    const run = await reconciler.reconcile({ dryRun: false });
    expect(run.failures).toEqual([]);
    expect(await targetOf(long.id)).toBe(arn('long-scan-queue'));
    expect(await targetOf(standard.id)).toBe(arn('scan-queue'));
    expect((await reconciler.reconcile({ dryRun: true })).actions).toEqual([]);
  });

  it('reports a trigger whose target is no class queue as unreadable, and refuses a class without a queue', async () => {
    const { id } = await service.create('acme', mail);
    const stored = await client.send(new GetScheduleCommand({ Name: id, GroupName: GROUP }));
    await client.send(
      new UpdateScheduleCommand({
        Name: id,
        GroupName: GROUP,
        ScheduleExpression: stored.ScheduleExpression,
        FlexibleTimeWindow: stored.FlexibleTimeWindow,
        Target: { ...stored.Target!, Arn: arn('somebody-elses-queue') },
      }),
    );
    expect((await scheduler.inventory()).unrecognised).toEqual([{ name: id, reason: 'target is not a scan queue' }]);

    const standardOnly = new EventBridgeTriggerScheduler({
      client,
      groupName: GROUP,
      queueArn: arn('scan-queue'),
      roleArn: `arn:aws:iam::${moto.accountId}:role/scheduler`,
      deadLetterArn: arn('fire-dlq'),
      sleep: async () => {},
    });
    await expect(
      standardOnly.sync('acme', 'sch_long', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC', queue: 'long' }),
    ).rejects.toThrow('no scan queue is configured for the long resource class');
  });
});
