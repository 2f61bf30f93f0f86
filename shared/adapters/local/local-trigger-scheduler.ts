import { randomUUID } from 'node:crypto';
import { nextFireTime, parseEventBridgeCron } from '../../domain/cron/eventbridge-cron.ts';
import { isValidTimeZone } from '../../domain/cron/time-zone.ts';
import { TriggerUnavailableError } from '../../domain/errors.ts';
import type { FireMessage } from '../../domain/messages.ts';
import type { Clock } from '../../ports/clock.ts';
import type { MessageQueue } from '../../ports/message-queue.ts';
import { triggerNames } from '../../domain/trigger-names.ts';
import type { TargetedTrigger } from '../../domain/trigger.ts';
import type { ProvisionedTrigger, TriggerScheduler } from '../../ports/trigger-scheduler.ts';

export interface LocalTriggerSchedulerOptions {
  clock: Clock;
  queue: MessageQueue;
  /** Where failures of the timer-driven runs go; a timer has no caller to throw to. */
  onError?: (err: unknown) => void;
}

interface ArmedTrigger extends ProvisionedTrigger {
  /** Fires at or before this instant have been sent (or predate the sync). */
  checkedUntil: Date;
}

interface DueFire {
  trigger: ArmedTrigger;
  at: Date;
}

/**
 * In-process stand-in for EventBridge Scheduler. It evaluates the same emitted `cron(...)`
 * expressions and puts the same fire messages on the queue, so local runs exercise the real
 * dispatch path. Like EventBridge, each trigger name fires on its own, and a trigger never fires
 * for times before it was synchronised.
 */
export class LocalTriggerScheduler implements TriggerScheduler {
  readonly #clock: Clock;
  readonly #queue: MessageQueue;
  readonly #onError: (err: unknown) => void;
  readonly #triggers = new Map<string, ArmedTrigger>();
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<FireMessage[]> = Promise.resolve([]);

  constructor(options: LocalTriggerSchedulerOptions) {
    this.#clock = options.clock;
    this.#queue = options.queue;
    this.#onError = options.onError ?? ((err) => console.error('local trigger scheduler run failed', err));
  }

  async sync(tenant: string, scheduleId: string, definition: TargetedTrigger | null): Promise<void> {
    const armed = definition === null ? [] : this.#arm(tenant, scheduleId, definition);
    for (const [key, trigger] of this.#triggers) {
      if (trigger.tenant === tenant && trigger.scheduleId === scheduleId) this.#triggers.delete(key);
    }
    for (const trigger of armed) this.#triggers.set(keyOf(trigger.tenant, trigger.name), trigger);
  }

  async list(): Promise<ProvisionedTrigger[]> {
    return [...this.#triggers.values()].map(({ name, tenant, scheduleId, expression, timezone, queue }) => ({
      name,
      tenant,
      scheduleId,
      expression,
      timezone,
      queue,
    }));
  }

  /**
   * Send one fire message per trigger and due time since the last run, oldest first, and return
   * them. Runs are serialised so that the timer and a direct call never send a fire twice.
   */
  runDue(): Promise<FireMessage[]> {
    this.#running = this.#running.then(
      () => this.#sendDue(),
      () => this.#sendDue(),
    );
    return this.#running;
  }

  /** Run {@link runDue} every `intervalMs` until {@link stop}; the timer does not keep the process alive. */
  start(intervalMs = 1000): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => {
      this.runDue().catch(this.#onError);
    }, intervalMs).unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #arm(tenant: string, scheduleId: string, definition: TargetedTrigger): ArmedTrigger[] {
    // Refuse here what EventBridge would refuse on create, so a bad definition fails the request.
    if (!isValidTimeZone(definition.timezone)) {
      throw new TriggerUnavailableError(`unknown time zone ${definition.timezone}`);
    }
    const names = triggerNames(scheduleId, definition.expressions.length);
    const now = this.#clock.now();
    return definition.expressions.map((expression, i) => {
      try {
        parseEventBridgeCron(expression);
      } catch (err) {
        throw new TriggerUnavailableError(err instanceof Error ? err.message : String(err));
      }
      const queue = definition.queue ?? 'standard';
      return { name: names[i], tenant, scheduleId, expression, timezone: definition.timezone, queue, checkedUntil: now };
    });
  }

  async #sendDue(): Promise<FireMessage[]> {
    const now = this.#clock.now();
    const due: DueFire[] = [];
    for (const trigger of this.#triggers.values()) {
      for (let at = nextFireTime(trigger.expression, trigger.timezone, trigger.checkedUntil); at !== null && at <= now;) {
        due.push({ trigger, at });
        at = nextFireTime(trigger.expression, trigger.timezone, at);
      }
    }
    due.sort((a, b) => a.at.getTime() - b.at.getTime() || a.trigger.name.localeCompare(b.trigger.name));
    const sent: FireMessage[] = [];
    for (const { trigger, at } of due) {
      // A trigger removed or replaced while an earlier send was awaited no longer fires.
      if (this.#triggers.get(keyOf(trigger.tenant, trigger.name)) !== trigger) continue;
      const message: FireMessage = {
        kind: 'fire',
        tenant: trigger.tenant,
        schedule_id: trigger.scheduleId,
        scheduled_time: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        execution_id: randomUUID(),
      };
      await this.#queue.send(message, trigger.queue);
      // Advanced per message: after a failed send, the next run resumes with the unsent fires.
      trigger.checkedUntil = at;
      sent.push(message);
    }
    for (const trigger of this.#triggers.values()) {
      if (trigger.checkedUntil < now) trigger.checkedUntil = now;
    }
    return sent;
  }
}

function keyOf(tenant: string, name: string): string {
  return `${tenant}\u0000${name}`;
}
