import { TriggerUnavailableError } from '../../shared/domain/errors.ts';
import type { Trigger } from '../../shared/domain/trigger.ts';
import type { TriggerScheduler } from '../../shared/ports/trigger-scheduler.ts';

/**
 * Wraps a trigger scheduler so a test can make its next calls fail: refused (as EventBridge
 * throttling or an outage would be), or half-done (the first trigger of a pair written, then a
 * failure), or paused until the test lets the call go on.
 */
export class FaultyTriggers implements TriggerScheduler {
  failures: ('refuse' | 'half' | 'crash')[] = [];
  gate: Promise<void> | null = null;
  calls = 0;

  constructor(readonly inner: TriggerScheduler) {}

  async sync(tenant: string, scheduleId: string, definition: Trigger | null, previous?: Trigger | null): Promise<void> {
    this.calls += 1;
    const failure = this.failures.shift();
    if (this.gate) await this.gate;
    if (failure === 'refuse') throw new TriggerUnavailableError('the trigger scheduler is unavailable');
    if (failure === 'crash') throw new Error('socket hang up');
    if (failure === 'half') {
      if (definition && definition.expressions.length === 2) {
        await this.inner.sync(tenant, scheduleId, { ...definition, expressions: definition.expressions.slice(0, 1) });
      } else {
        await this.inner.sync(tenant, scheduleId, null);
      }
      throw new TriggerUnavailableError('the trigger scheduler failed half way');
    }
    await this.inner.sync(tenant, scheduleId, definition, previous);
  }

  list() {
    return this.inner.list();
  }
}
