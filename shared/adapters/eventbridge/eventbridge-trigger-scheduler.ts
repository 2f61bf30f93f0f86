import { setTimeout as delay } from 'node:timers/promises';
import {
  CreateScheduleCommand,
  DeleteScheduleCommand,
  GetScheduleCommand,
  ListSchedulesCommand,
  UpdateScheduleCommand,
  type GetScheduleOutput,
  type SchedulerClient,
} from '@aws-sdk/client-scheduler';
import { mapBounded } from '../../../lib/concurrency.ts';
import { retry, type RetryOptions } from '../../../lib/retry.ts';
import { TriggerUnavailableError } from '../../domain/errors.ts';
import { triggerNames } from '../../domain/trigger-names.ts';
import type { TargetedTrigger } from '../../domain/trigger.ts';
import type { ResourceClass } from '../../../lib/engine-manifest.ts';
import type { ProvisionedTrigger, TriggerScheduler } from '../../ports/trigger-scheduler.ts';
import { matchesRequest, readTrigger, scheduleRequest, type TriggerTarget } from './schedule-request.ts';
import { errorName, isRetryable } from './retryable-errors.ts';
import { API_ATTEMPT } from '../aws-request-handler.ts';

/** The slice of a structured logger (Powertools Logger fits) this adapter writes to. */
export interface SchedulerLogger {
  warn(message: string, attributes: Record<string, unknown>): void;
}

/** Constructor options of {@link EventBridgeTriggerScheduler}. */
export interface EventBridgeTriggerSchedulerOptions {
  /** Build it with makeSchedulerClient(), which turns SDK retries off (see there why). */
  client: SchedulerClient;
  /** The environment's schedule group; every trigger lives there. */
  groupName: string;
  /** The standard class's scan queue: the target of every trigger of a standard type. */
  queueArn: string;
  /**
   * The other resource classes' scan queues (DESIGN §11): a trigger of a long type targets the long
   * queue. A trigger of a class without one here is refused (TriggerUnavailableError).
   */
  classQueueArns?: Partial<Record<ResourceClass, string>>;
  /** The execution role that may only sqs:SendMessage to the scan queue. */
  roleArn: string;
  /** The queue that receives fires EventBridge could not deliver. */
  deadLetterArn: string;
  /** Attempts per API call, first included, before TriggerUnavailableError. Default 5. */
  maxAttempts?: number;
  /** Backoff ceiling before the first retry. Default 100 ms. */
  baseDelayMs?: number;
  /** Cap on any single backoff delay. Default 2 000 ms. */
  maxDelayMs?: number;
  /** GetSchedule calls in flight during list(). Default 8, well under the API's rate quota. */
  listConcurrency?: number;
  /**
   * Milliseconds one API call may take, its retries included: a retry is made only while one more
   * attempt of `attemptMs` still fits. Default 3 500, so a write that fails and then settles stays
   * well inside the schedules function's 10 s (docs/aws-timeouts.md).
   */
  callBudgetMs?: number;
  /** The longest one attempt can take: the client's request bound. Default API_ATTEMPT's. */
  attemptMs?: number;
  /** Milliseconds on a monotonic clock; injected by tests. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  logger?: SchedulerLogger;
}

/** A schedule in the group that does not deliver a well-formed fire for the row its name claims. */
export interface UnrecognisedTrigger {
  name: string;
  reason: string;
}

/** Everything in the schedule group, sorted by name. */
export interface TriggerInventory {
  triggers: ProvisionedTrigger[];
  unrecognised: UnrecognisedTrigger[];
}

/** Passed through to the caller as-is instead of becoming TriggerUnavailableError. */
type ExpectedError = 'ConflictException' | 'ResourceNotFoundException';

/**
 * TriggerScheduler on EventBridge Scheduler: one schedule per trigger name (DESIGN §5) in the
 * environment's group, each sending the fire message to the scan queue.
 *
 * Every API call is retried on throttling, 5xx and network faults with exponential backoff and
 * full jitter, up to `maxAttempts`; what still fails, and every other error, becomes
 * TriggerUnavailableError naming the operation and the error's name only (SDK messages quote
 * account ids and role ARNs, which must not reach an API client; they are logged instead).
 */
export class EventBridgeTriggerScheduler implements TriggerScheduler {
  readonly #client: SchedulerClient;
  readonly #target: Omit<TriggerTarget, 'queueArn'>;
  /** Each resource class's scan queue ARN, and back. */
  readonly #queueArns: ReadonlyMap<ResourceClass, string>;
  readonly #classOfQueue: ReadonlyMap<string, ResourceClass>;
  /** The retry loop's policy (engine kit): attempts, full-jitter backoff, the injected sleep and random. */
  readonly #retry: Omit<RetryOptions, 'retryable'>;
  readonly #listConcurrency: number;
  readonly #callBudgetMs: number;
  readonly #attemptMs: number;
  readonly #now: () => number;
  readonly #logger: SchedulerLogger | undefined;

  constructor(options: EventBridgeTriggerSchedulerOptions) {
    this.#client = options.client;
    this.#target = { groupName: options.groupName, roleArn: options.roleArn, deadLetterArn: options.deadLetterArn };
    const queueArns = new Map<ResourceClass, string>([['standard', options.queueArn]]);
    for (const [name, arn] of Object.entries(options.classQueueArns ?? {}) as [ResourceClass, string | undefined][]) {
      if (arn !== undefined) queueArns.set(name, arn);
    }
    this.#queueArns = queueArns;
    this.#classOfQueue = new Map([...queueArns].map(([name, arn]) => [arn, name]));
    const sleep = options.sleep ?? ((ms: number) => delay(ms));
    this.#retry = {
      attempts: options.maxAttempts ?? 5,
      baseMs: options.baseDelayMs ?? 100,
      maxMs: options.maxDelayMs ?? 2_000,
      sleep: (ms) => sleep(ms),
      random: options.random ?? Math.random,
    };
    this.#listConcurrency = options.listConcurrency ?? 8;
    this.#callBudgetMs = options.callBudgetMs ?? 3_500;
    this.#attemptMs = options.attemptMs ?? API_ATTEMPT.requestMs;
    this.#now = options.now ?? (() => performance.now());
    this.#logger = options.logger;
  }

  /**
   * Creates or updates the wanted names first and deletes the names no longer wanted after, so a
   * row that changes shape is never left without a trigger mid-way. A failure part-way leaves a
   * state that syncing either the old or the new definition again repairs, since every step is
   * idempotent.
   *
   * With `previous` (what the row held before the write), only the names that differ are touched,
   * one call each: a new name is created, a changed one updated in place, a dropped one deleted,
   * an unchanged one left alone. A create that meets an existing name, or an update that meets a
   * missing one, still ends at the wanted schedule (#put, #update). Without it, every wanted name
   * is written and every other name the schedule could have is deleted, whether or not it exists.
   */
  async sync(tenant: string, scheduleId: string, definition: TargetedTrigger | null, previous?: TargetedTrigger | null): Promise<void> {
    const wanted = this.#triggersOf(tenant, scheduleId, definition);
    const wantedNames = new Set(wanted.map((trigger) => trigger.name));
    if (previous === undefined) {
      for (const trigger of wanted) await this.#put(trigger);
      const everyName = [...triggerNames(scheduleId, 1), ...triggerNames(scheduleId, 2)];
      for (const name of everyName.filter((candidate) => !wantedNames.has(candidate))) await this.deleteTrigger(name);
      return;
    }
    const held = new Map(this.#triggersOf(tenant, scheduleId, previous).map((trigger) => [trigger.name, trigger]));
    for (const trigger of wanted) {
      const before = held.get(trigger.name);
      if (before === undefined) await this.#put(trigger);
      else if (before.expression !== trigger.expression || before.timezone !== trigger.timezone || before.queue !== trigger.queue)
        await this.#update(trigger);
    }
    for (const name of held.keys()) if (!wantedNames.has(name)) await this.deleteTrigger(name);
  }

  #triggersOf(tenant: string, scheduleId: string, definition: TargetedTrigger | null): ProvisionedTrigger[] {
    if (definition === null) return [];
    return triggerNames(scheduleId, definition.expressions.length).map((name, index) => ({
      name,
      tenant,
      scheduleId,
      expression: definition.expressions[index],
      timezone: definition.timezone,
      queue: definition.queue ?? 'standard',
    }));
  }

  /** The full target of one trigger: its resource class's scan queue, or why there is none. */
  #targetOf(trigger: ProvisionedTrigger): TriggerTarget {
    const queueArn = this.#queueArns.get(trigger.queue ?? 'standard');
    if (queueArn === undefined) {
      throw new TriggerUnavailableError(`no scan queue is configured for the ${trigger.queue} resource class`);
    }
    return { ...this.#target, queueArn };
  }

  /**
   * The well-formed triggers of the group. Schedules that do not deliver a proper fire are left
   * out (and logged); {@link inventory} reports them so reconcile can delete them.
   */
  async list(): Promise<ProvisionedTrigger[]> {
    return (await this.inventory()).triggers;
  }

  /**
   * Every schedule of the group, split into well-formed triggers and unrecognised ones. Reconcile
   * deletes an unrecognised name with {@link deleteTrigger} when no row owns its schedule id; when
   * a row does, re-syncing that row overwrites it. A name deleted between the listing and its
   * GetSchedule is skipped.
   */
  async inventory(): Promise<TriggerInventory> {
    const names = await this.#listNames();
    const described = await mapBounded(names, this.#listConcurrency, async (name) => {
      const schedule = await this.#get(name);
      return schedule === null ? null : { name, read: readTrigger(this.#classOfQueue, name, schedule) };
    });
    const inventory: TriggerInventory = { triggers: [], unrecognised: [] };
    for (const entry of described) {
      if (entry === null) continue;
      const { name, read } = entry;
      if (read.ok) {
        const { tenant, scheduleId, expression, timezone, queue } = read;
        inventory.triggers.push({ name, tenant, scheduleId, expression, timezone, queue });
      } else {
        this.#logger?.warn('unrecognised trigger', { name, reason: read.reason });
        inventory.unrecognised.push({ name, reason: read.reason });
      }
    }
    return inventory;
  }

  /** Delete one schedule of the group by name; a name that does not exist counts as deleted. */
  async deleteTrigger(name: string): Promise<void> {
    try {
      const input = { Name: name, GroupName: this.#target.groupName };
      await this.#send('DeleteSchedule', () => this.#client.send(new DeleteScheduleCommand(input)), ['ResourceNotFoundException']);
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') throw error;
    }
  }

  /**
   * Create, or on ConflictException bring the existing schedule to the request. Two rounds cover a
   * concurrent delete between our calls (Get or Update then answers ResourceNotFound).
   */
  async #put(trigger: ProvisionedTrigger): Promise<void> {
    const request = scheduleRequest(this.#targetOf(trigger), trigger);
    for (let round = 1; ; round++) {
      const lastRound = round === 2;
      try {
        await this.#send('CreateSchedule', () => this.#client.send(new CreateScheduleCommand(request)), ['ConflictException']);
        return;
      } catch (error) {
        if (errorName(error) !== 'ConflictException' || lastRound) throw this.#unavailable('CreateSchedule', error);
      }
      const existing = await this.#get(trigger.name);
      if (existing === null) continue;
      if (matchesRequest(existing, request)) return;
      try {
        await this.#send('UpdateSchedule', () => this.#client.send(new UpdateScheduleCommand(request)), ['ResourceNotFoundException']);
        return;
      } catch (error) {
        if (errorName(error) !== 'ResourceNotFoundException' || lastRound) throw this.#unavailable('UpdateSchedule', error);
      }
    }
  }

  /** UpdateSchedule on a name the caller knows exists; one that is gone is created instead. */
  async #update(trigger: ProvisionedTrigger): Promise<void> {
    const request = scheduleRequest(this.#targetOf(trigger), trigger);
    try {
      await this.#send('UpdateSchedule', () => this.#client.send(new UpdateScheduleCommand(request)), ['ResourceNotFoundException']);
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') throw this.#unavailable('UpdateSchedule', error);
      await this.#put(trigger);
    }
  }

  /** GetSchedule, or null when the name does not exist. */
  async #get(name: string): Promise<GetScheduleOutput | null> {
    try {
      const input = { Name: name, GroupName: this.#target.groupName };
      return await this.#send('GetSchedule', () => this.#client.send(new GetScheduleCommand(input)), ['ResourceNotFoundException']);
    } catch (error) {
      if (errorName(error) === 'ResourceNotFoundException') return null;
      throw error;
    }
  }

  async #listNames(): Promise<string[]> {
    const names: string[] = [];
    let nextToken: string | undefined;
    do {
      const input = { GroupName: this.#target.groupName, MaxResults: 100, ...(nextToken === undefined ? {} : { NextToken: nextToken }) };
      const page = await this.#send('ListSchedules', () => this.#client.send(new ListSchedulesCommand(input)));
      for (const summary of page.Schedules ?? []) if (summary.Name !== undefined) names.push(summary.Name);
      nextToken = page.NextToken;
    } while (nextToken !== undefined);
    return names.sort();
  }

  /**
   * One API call with the backoff loop, within the call budget. Errors named in `expected` are
   * rethrown untouched for the caller to handle; everything else that is final becomes
   * TriggerUnavailableError.
   */
  async #send<T>(operation: string, call: () => Promise<T>, expected: readonly ExpectedError[] = []): Promise<T> {
    const isExpected = (error: unknown) => (expected as readonly string[]).includes(errorName(error));
    let attempts = 0;
    const started = this.#now();
    const anotherFits = () => this.#now() - started + this.#attemptMs <= this.#callBudgetMs;
    try {
      return await retry(
        () => {
          attempts += 1;
          return call();
        },
        { ...this.#retry, retryable: (error) => !isExpected(error) && isRetryable(error) && anotherFits() },
      );
    } catch (error) {
      if (isExpected(error)) throw error;
      throw this.#unavailable(operation, error, attempts);
    }
  }

  #unavailable(operation: string, error: unknown, attempts = 1): TriggerUnavailableError {
    if (error instanceof TriggerUnavailableError) return error;
    const name = errorName(error);
    this.#logger?.warn('scheduler call failed', {
      operation,
      error: name,
      attempts,
      detail: error instanceof Error ? error.message : String(error),
    });
    const tries = attempts > 1 ? ` after ${attempts} attempts` : '';
    return new TriggerUnavailableError(`EventBridge Scheduler ${operation} failed (${name})${tries}`);
  }
}
