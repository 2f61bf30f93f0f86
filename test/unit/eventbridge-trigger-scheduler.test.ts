import {
  ConflictException,
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  ResourceNotFoundException,
  SchedulerClient,
  SchedulerServiceException,
  ServiceQuotaExceededException,
  ThrottlingException,
  UpdateScheduleCommand,
  type CreateScheduleInput,
  type DeleteScheduleInput,
  type GetScheduleInput,
  type ListSchedulesInput,
  type UpdateScheduleInput,
} from '@aws-sdk/client-scheduler';
import { mockClient, type AwsClientStub } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EventBridgeTriggerScheduler,
  type EventBridgeTriggerSchedulerOptions,
} from '../../shared/adapters/eventbridge/eventbridge-trigger-scheduler.ts';
import { TriggerUnavailableError } from '../../shared/domain/errors.ts';
import { isRetryable } from '../../shared/adapters/eventbridge/retryable-errors.ts';
import { describeTriggerSchedulerContract } from '../contracts/trigger-scheduler-contract.ts';

const TARGET = {
  groupName: 'scan-service-dev',
  queueArn: 'arn:aws:sqs:eu-west-1:123456789012:scan-queue',
  roleArn: 'arn:aws:iam::123456789012:role/scan-service-dev-scheduler',
  deadLetterArn: 'arn:aws:sqs:eu-west-1:123456789012:scan-fire-dlq',
};

const FIRE_INPUT =
  '{"kind":"fire","tenant":"acme","schedule_id":"sch_01A","scheduled_time":"<aws.scheduler.scheduled-time>","execution_id":"<aws.scheduler.execution-id>"}';

/** The exact CreateSchedule / UpdateSchedule input for trigger `name` of acme's sch_01A. */
function expectedRequest(name: string, expression: string, timezone = 'UTC'): CreateScheduleInput {
  return {
    Name: name,
    GroupName: 'scan-service-dev',
    ScheduleExpression: expression,
    ScheduleExpressionTimezone: timezone,
    FlexibleTimeWindow: { Mode: 'OFF' },
    State: 'ENABLED',
    Description: 'scan schedule sch_01A of tenant acme',
    ActionAfterCompletion: 'NONE',
    Target: {
      Arn: 'arn:aws:sqs:eu-west-1:123456789012:scan-queue',
      RoleArn: 'arn:aws:iam::123456789012:role/scan-service-dev-scheduler',
      Input: FIRE_INPUT,
      RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 3600 },
      DeadLetterConfig: { Arn: 'arn:aws:sqs:eu-west-1:123456789012:scan-fire-dlq' },
    },
  };
}

type Operation = 'CreateSchedule' | 'GetSchedule' | 'UpdateSchedule' | 'DeleteSchedule' | 'ListSchedules';

/**
 * A stateful in-memory EventBridge Scheduler: schedules per group in a Map, the SDK's own
 * exception classes, UpdateSchedule replacing the whole definition, and ListSchedules pages of
 * `pageSize` so every list() walks NextToken. `failNext` makes the next calls of one operation
 * throw before the fake's state is touched, then the fake answers again.
 */
function fakeSchedulerApi(client: SchedulerClient, pageSize = 2) {
  const schedules = new Map<string, CreateScheduleInput>();
  const faults = new Map<Operation, Error[]>();
  const failNext = (operation: Operation, ...errors: Error[]) => faults.set(operation, [...(faults.get(operation) ?? []), ...errors]);
  const injectFault = (operation: Operation) => {
    const fault = faults.get(operation)?.shift();
    if (fault !== undefined) throw fault;
  };
  const api = mockClient(client);
  const keyOf = (input: { GroupName?: string | undefined; Name?: string | undefined }) => `${input.GroupName ?? 'default'}/${input.Name}`;
  const notFound = (name: string | undefined) =>
    new ResourceNotFoundException({ message: `Schedule ${name} does not exist.`, $metadata: { httpStatusCode: 404 }, Message: undefined });

  api.on(CreateScheduleCommand).callsFake(async (input: CreateScheduleInput) => {
    injectFault('CreateSchedule');
    if (schedules.has(keyOf(input))) {
      throw new ConflictException({
        message: `Schedule ${input.Name} already exists.`,
        $metadata: { httpStatusCode: 409 },
        Message: undefined,
      });
    }
    schedules.set(keyOf(input), structuredClone(input));
    return { ScheduleArn: `arn:aws:scheduler:eu-west-1:123456789012:schedule/${keyOf(input)}` };
  });
  api.on(GetScheduleCommand).callsFake(async (input: GetScheduleInput) => {
    injectFault('GetSchedule');
    const stored = schedules.get(keyOf(input));
    if (stored === undefined) throw notFound(input.Name);
    return structuredClone(stored);
  });
  api.on(UpdateScheduleCommand).callsFake(async (input: UpdateScheduleInput) => {
    injectFault('UpdateSchedule');
    if (!schedules.has(keyOf(input))) throw notFound(input.Name);
    schedules.set(keyOf(input), structuredClone(input));
    return { ScheduleArn: `arn:aws:scheduler:eu-west-1:123456789012:schedule/${keyOf(input)}` };
  });
  api.on(DeleteScheduleCommand).callsFake(async (input: DeleteScheduleInput) => {
    injectFault('DeleteSchedule');
    if (!schedules.delete(keyOf(input))) throw notFound(input.Name);
    return {};
  });
  api.on(ListSchedulesCommand).callsFake(async (input: ListSchedulesInput) => {
    injectFault('ListSchedules');
    const inGroup = [...schedules.values()].filter((schedule) => schedule.GroupName === input.GroupName);
    const names = inGroup.map((schedule) => schedule.Name!).sort();
    const start = input.NextToken === undefined ? 0 : Number(input.NextToken);
    const end = start + Math.min(pageSize, input.MaxResults ?? pageSize);
    const page = names.slice(start, end).map((name) => ({ Name: name, GroupName: input.GroupName }));
    return { Schedules: page, ...(end < names.length ? { NextToken: String(end) } : {}) };
  });
  return { api, schedules, failNext };
}

function throttled(): ThrottlingException {
  return new ThrottlingException({ message: 'Rate exceeded', $metadata: { httpStatusCode: 429 }, Message: undefined });
}

function accessDenied(): SchedulerServiceException {
  return new SchedulerServiceException({
    name: 'AccessDeniedException',
    $fault: 'client',
    $metadata: { httpStatusCode: 403 },
    message: 'User: arn:aws:sts::123456789012:assumed-role/api/fn is not authorized to perform: scheduler:CreateSchedule',
  });
}

/** A scheduler whose sleeps are recorded, not waited, and whose jitter draws come from `draws`. */
function makeScheduler(client: SchedulerClient, options: Partial<EventBridgeTriggerSchedulerOptions> & { draws?: number[] } = {}) {
  const sleeps: number[] = [];
  const draws = [...(options.draws ?? [])];
  const warnings: { message: string; attributes: Record<string, unknown> }[] = [];
  const scheduler = new EventBridgeTriggerScheduler({
    client,
    ...TARGET,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => draws.shift() ?? 0.5,
    logger: { warn: (message, attributes) => warnings.push({ message, attributes }) },
    ...options,
  });
  return { scheduler, sleeps, warnings };
}

describeTriggerSchedulerContract('EventBridge Scheduler (in-memory API fake)', async () => {
  const client = new SchedulerClient({ region: 'eu-west-1' });
  const { api } = fakeSchedulerApi(client);
  return { scheduler: makeScheduler(client).scheduler, cleanup: async () => api.restore() };
});

describe('EventBridgeTriggerScheduler', () => {
  let client: SchedulerClient;
  let api: AwsClientStub<SchedulerClient>;
  let schedules: Map<string, CreateScheduleInput>;
  let failNext: ReturnType<typeof fakeSchedulerApi>['failNext'];

  beforeEach(() => {
    client = new SchedulerClient({ region: 'eu-west-1' });
    ({ api, schedules, failNext } = fakeSchedulerApi(client));
  });

  afterEach(() => {
    api.restore();
  });

  it('creates one schedule with the full request shape for a single expression', async () => {
    const { scheduler } = makeScheduler(client);

    await scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });

    expect(api.commandCalls(CreateScheduleCommand).map((call) => call.args[0].input)).toEqual([
      expectedRequest('sch_01A', 'cron(0 2 * * ? *)'),
    ]);
    expect(api.commandCalls(DeleteScheduleCommand).map((call) => call.args[0].input)).toEqual([
      { Name: 'sch_01A-dom', GroupName: 'scan-service-dev' },
      { Name: 'sch_01A-dow', GroupName: 'scan-service-dev' },
    ]);
  });

  it('creates -dom and -dow schedules for a split rule and deletes the plain name after them', async () => {
    const { scheduler } = makeScheduler(client);
    await scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });
    api.resetHistory();

    await scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 0 1,15 * ? *)', 'cron(0 0 ? * MON *)'], timezone: 'Europe/Berlin' });

    expect(api.commandCalls(CreateScheduleCommand).map((call) => call.args[0].input)).toEqual([
      expectedRequest('sch_01A-dom', 'cron(0 0 1,15 * ? *)', 'Europe/Berlin'),
      expectedRequest('sch_01A-dow', 'cron(0 0 ? * MON *)', 'Europe/Berlin'),
    ]);
    expect(api.commandCalls(DeleteScheduleCommand).map((call) => call.args[0].input)).toEqual([
      { Name: 'sch_01A', GroupName: 'scan-service-dev' },
    ]);
    expect(api.calls().map((call) => (call.args[0] as object).constructor.name)).toEqual([
      'CreateScheduleCommand',
      'CreateScheduleCommand',
      'DeleteScheduleCommand',
    ]);
  });

  it('gets and updates with the full definition when the schedule already exists', async () => {
    const { scheduler } = makeScheduler(client);
    await scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });
    api.resetHistory();

    await scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 3 ? * MON *)'], timezone: 'Europe/Paris' });

    expect(api.commandCalls(CreateScheduleCommand)).toHaveLength(1);
    expect(api.commandCalls(GetScheduleCommand).map((call) => call.args[0].input)).toEqual([
      { Name: 'sch_01A', GroupName: 'scan-service-dev' },
    ]);
    expect(api.commandCalls(UpdateScheduleCommand).map((call) => call.args[0].input)).toEqual([
      expectedRequest('sch_01A', 'cron(0 3 ? * MON *)', 'Europe/Paris'),
    ]);
    expect(schedules.get('scan-service-dev/sch_01A')).toEqual(expectedRequest('sch_01A', 'cron(0 3 ? * MON *)', 'Europe/Paris'));
  });

  it('skips the update when the existing schedule already matches', async () => {
    const { scheduler } = makeScheduler(client);
    const daily = { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' };
    await scheduler.sync('acme', 'sch_01A', daily);
    api.resetHistory();

    await scheduler.sync('acme', 'sch_01A', daily);

    expect(api.commandCalls(GetScheduleCommand)).toHaveLength(1);
    expect(api.commandCalls(UpdateScheduleCommand)).toHaveLength(0);
  });

  it('creates again when the schedule vanishes between the conflict and the get', async () => {
    const { scheduler } = makeScheduler(client);
    failNext('CreateSchedule', new ConflictException({ message: 'exists', $metadata: {}, Message: undefined }));

    await scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });

    expect(api.commandCalls(CreateScheduleCommand)).toHaveLength(2);
    expect(schedules.get('scan-service-dev/sch_01A')).toEqual(expectedRequest('sch_01A', 'cron(0 2 * * ? *)'));
  });

  it('treats ResourceNotFound on delete as success', async () => {
    const { scheduler } = makeScheduler(client);

    await expect(scheduler.sync('acme', 'sch_01A', null)).resolves.toBeUndefined();

    expect(api.commandCalls(DeleteScheduleCommand).map((call) => call.args[0].input)).toEqual([
      { Name: 'sch_01A', GroupName: 'scan-service-dev' },
      { Name: 'sch_01A-dom', GroupName: 'scan-service-dev' },
      { Name: 'sch_01A-dow', GroupName: 'scan-service-dev' },
    ]);
  });

  it('retries throttling with full-jitter backoff and succeeds on the third call', async () => {
    const { scheduler, sleeps } = makeScheduler(client, { baseDelayMs: 100, draws: [0.5, 0.999] });
    failNext('CreateSchedule', throttled(), throttled());

    await scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });

    expect(api.commandCalls(CreateScheduleCommand)).toHaveLength(3);
    expect(sleeps).toEqual([50, 199]);
    expect(sleeps[0]).toBeLessThan(100);
    expect(sleeps[1]).toBeLessThan(200);
    expect(schedules.has('scan-service-dev/sch_01A')).toBe(true);
  });

  it('caps each backoff delay at maxDelayMs', async () => {
    const { scheduler, sleeps } = makeScheduler(client, {
      baseDelayMs: 100,
      maxDelayMs: 300,
      maxAttempts: 5,
      draws: [0.999, 0.999, 0.999, 0.999],
    });
    api.on(CreateScheduleCommand).rejects(throttled());

    await expect(scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' })).rejects.toThrow(
      TriggerUnavailableError,
    );

    expect(sleeps).toEqual([99, 199, 299, 299]);
  });

  it('gives up with TriggerUnavailableError after maxAttempts of throttling', async () => {
    const { scheduler, sleeps } = makeScheduler(client, { maxAttempts: 4 });
    api.on(CreateScheduleCommand).rejects(throttled());

    const sync = scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });

    await expect(sync).rejects.toThrow(
      new TriggerUnavailableError('EventBridge Scheduler CreateSchedule failed (ThrottlingException) after 4 attempts'),
    );
    expect(api.commandCalls(CreateScheduleCommand)).toHaveLength(4);
    expect(sleeps).toHaveLength(3);
  });

  it('stops retrying once another attempt would not fit the call budget', async () => {
    // Each attempt takes the full attempt bound, as a call cut off by the request timeout does.
    let clock = 0;
    const { scheduler } = makeScheduler(client, { maxAttempts: 5, callBudgetMs: 3_500, attemptMs: 2_000, now: () => clock });
    api.on(CreateScheduleCommand).callsFake(() => {
      clock += 2_000;
      throw Object.assign(new Error('a request has exceeded the configured 2000 ms requestTimeout'), { name: 'TimeoutError' });
    });

    const sync = scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });

    await expect(sync).rejects.toThrow(new TriggerUnavailableError('EventBridge Scheduler CreateSchedule failed (TimeoutError)'));
    expect(api.commandCalls(CreateScheduleCommand)).toHaveLength(1);
  });

  it('retries a server fault like throttling', async () => {
    const { scheduler } = makeScheduler(client);
    failNext(
      'DeleteSchedule',
      new SchedulerServiceException({
        name: 'InternalServerException',
        $fault: 'server',
        $metadata: { httpStatusCode: 500 },
        message: 'oops',
      }),
    );

    await scheduler.sync('acme', 'sch_01A', null);

    expect(api.commandCalls(DeleteScheduleCommand)).toHaveLength(4);
  });

  it('retries a reset connection while listing', async () => {
    const { scheduler } = makeScheduler(client);
    failNext('ListSchedules', Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));

    await expect(scheduler.list()).resolves.toEqual([]);

    expect(api.commandCalls(ListSchedulesCommand)).toHaveLength(2);
  });

  it('fails at once with TriggerUnavailableError on access denied, without the SDK message', async () => {
    const { scheduler, sleeps, warnings } = makeScheduler(client);
    api.on(CreateScheduleCommand).rejects(accessDenied());

    const error = await scheduler
      .sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(TriggerUnavailableError);
    expect((error as Error).message).toBe('EventBridge Scheduler CreateSchedule failed (AccessDeniedException)');
    expect(api.commandCalls(CreateScheduleCommand)).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(warnings).toEqual([
      {
        message: 'scheduler call failed',
        attributes: expect.objectContaining({ operation: 'CreateSchedule', error: 'AccessDeniedException', attempts: 1 }),
      },
    ]);
  });

  it('does not retry an exhausted schedule quota', async () => {
    const { scheduler } = makeScheduler(client);
    api
      .on(CreateScheduleCommand)
      .rejects(new ServiceQuotaExceededException({ message: 'quota', $metadata: { httpStatusCode: 402 }, Message: undefined }));

    await expect(scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' })).rejects.toThrow(
      'EventBridge Scheduler CreateSchedule failed (ServiceQuotaExceededException)',
    );

    expect(api.commandCalls(CreateScheduleCommand)).toHaveLength(1);
  });

  it('names the failing operation when a delete is refused', async () => {
    const { scheduler } = makeScheduler(client);
    api.on(DeleteScheduleCommand).rejects(accessDenied());

    await expect(scheduler.sync('acme', 'sch_01A', null)).rejects.toThrow(
      'EventBridge Scheduler DeleteSchedule failed (AccessDeniedException)',
    );
  });

  it('lists across NextToken pages and reads each trigger through GetSchedule', async () => {
    const { scheduler } = makeScheduler(client);
    for (const id of ['sch_01A', 'sch_01B', 'sch_01C']) {
      await scheduler.sync('acme', id, { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });
    }
    api.resetHistory();

    const triggers = await scheduler.list();

    expect(triggers.map((trigger) => trigger.name)).toEqual(['sch_01A', 'sch_01B', 'sch_01C']);
    expect(api.commandCalls(ListSchedulesCommand).map((call) => call.args[0].input)).toEqual([
      { GroupName: 'scan-service-dev', MaxResults: 100 },
      { GroupName: 'scan-service-dev', MaxResults: 100, NextToken: '2' },
    ]);
    expect(api.commandCalls(GetScheduleCommand)).toHaveLength(3);
  });

  it('reports schedules that do not deliver a proper fire as unrecognised instead of listing them', async () => {
    const { scheduler, warnings } = makeScheduler(client);
    await scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });
    const base = expectedRequest('sch_01A', 'cron(0 2 * * ? *)');
    const planted = (name: string, target: Partial<NonNullable<CreateScheduleInput['Target']>>) =>
      schedules.set(`scan-service-dev/${name}`, { ...base, Name: name, Target: { ...base.Target!, ...target } });
    planted('hand-made', { Input: '{"hello":"world"}' });
    planted('not-json', { Input: 'fire!' });
    planted('sch_01B', { Input: FIRE_INPUT.replace('<aws.scheduler.scheduled-time>', '2024-01-01T00:00:00Z') });
    planted('sch_01C', { Input: FIRE_INPUT });
    planted('sch_01D', { Arn: 'arn:aws:sqs:eu-west-1:123456789012:other-queue' });

    const inventory = await scheduler.inventory();

    expect(inventory.triggers.map((trigger) => trigger.name)).toEqual(['sch_01A']);
    expect(inventory.unrecognised).toEqual([
      { name: 'hand-made', reason: 'target input is not a fire message' },
      { name: 'not-json', reason: 'target input is not JSON' },
      { name: 'sch_01B', reason: 'target input lacks the scheduler context attributes' },
      { name: 'sch_01C', reason: 'target input names another schedule' },
      { name: 'sch_01D', reason: 'target is not a scan queue' },
    ]);
    expect(await scheduler.list()).toEqual(inventory.triggers);
    expect(warnings.filter((warning) => warning.message === 'unrecognised trigger')).toHaveLength(10);
  });

  it('deletes an unrecognised trigger by name', async () => {
    const { scheduler } = makeScheduler(client);
    schedules.set('scan-service-dev/hand-made', {
      ...expectedRequest('hand-made', 'cron(0 2 * * ? *)'),
      Target: { Arn: TARGET.queueArn, RoleArn: TARGET.roleArn, Input: '{}' },
    });

    await scheduler.deleteTrigger('hand-made');

    expect((await scheduler.inventory()).unrecognised).toEqual([]);
  });

  it('skips a schedule deleted between the listing and its GetSchedule', async () => {
    const { scheduler } = makeScheduler(client);
    await scheduler.sync('acme', 'sch_01A', { expressions: ['cron(0 2 * * ? *)'], timezone: 'UTC' });
    failNext('GetSchedule', new ResourceNotFoundException({ message: 'gone', $metadata: {}, Message: undefined }));

    expect(await scheduler.list()).toEqual([]);
  });
});

describe('which Scheduler failures are retried (isRetryable)', () => {
  it("follows the SDK's classification: throttling codes, 429, 5xx, retryable traits, reset sockets", () => {
    expect(isRetryable(throttled())).toBe(true);
    expect(isRetryable(Object.assign(new Error('slow down'), { name: 'TooManyRequestsException' }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('busy'), { $metadata: { httpStatusCode: 503 } }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('odd'), { $retryable: { throttling: true } }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('dns'), { code: 'EAI_AGAIN' }))).toBe(true);
    expect(isRetryable(Object.assign(new Error('inner'), { name: 'InternalServerException' }))).toBe(true);
  });

  it('never retries a client error or an exhausted quota', () => {
    expect(
      isRetryable(new ServiceQuotaExceededException({ message: 'quota', $metadata: { httpStatusCode: 402 }, Message: undefined })),
    ).toBe(false);
    expect(
      isRetryable(Object.assign(new Error('bad'), { name: 'ValidationException', $fault: 'client', $metadata: { httpStatusCode: 400 } })),
    ).toBe(false);
    expect(isRetryable('not an error')).toBe(false);
  });
});
