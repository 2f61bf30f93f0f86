/**
 * One attempt's request, with its retries: a 429 (its Retry-After told to the gate, so no request
 * goes to the origin before it), a 5xx or a dropped connection is retried up to twice through the
 * kit's retry loop, every try passing the gate (it counts against max_requests). What comes back
 * is the final answer, whatever its status; a timeout or an oversized answer is not retried.
 */
import { retry } from '../../../lib/retry.ts';
import { BudgetSpent, retryAfterMs, WaitPastDeadline, type Clock, type RequestGate, type TimeLeft } from './gate.ts';
import { drawer } from './seed.ts';
import { TransportError, type HttpRequest, type HttpResponse, type Transport } from './transport.ts';

const RETRIED_STATUS = new Set([429, 500, 502, 503, 504]);

class RetryableAnswer extends Error {
  constructor(readonly response: HttpResponse) {
    super(`HTTP ${response.status}`);
  }
}

export interface Exchanger {
  /** `authenticated` false: without the credential (the endpoint family asks what anyone gets). */
  exchange(request: HttpRequest, key: string, authenticated?: boolean): Promise<HttpResponse>;
}

export function makeExchanger(options: {
  transport: Transport;
  gate: RequestGate;
  clock: Clock;
  time: TimeLeft;
  seed: number;
  requestTimeoutMs: number;
  /** Tries in all for one attempt (1 + retries). */
  tries?: number;
}): Exchanger {
  const { transport, gate, clock, time, seed, requestTimeoutMs } = options;
  return {
    async exchange(request, key, authenticated = true) {
      const origin = request.url.origin;
      let last: HttpResponse | undefined;
      try {
        return await retry(
          async () => {
            await gate.acquire(origin);
            const response = await transport.send(request, {
              timeoutMs: Math.max(1, Math.min(requestTimeoutMs, time.remainingMs())),
              signal: time.signal,
              authenticated,
            });
            if (response.status === 429) {
              const wait = retryAfterMs(headerOf(response, 'retry-after'), clock.now());
              if (wait !== undefined) gate.backOff(origin, clock.now() + wait);
            }
            last = response;
            if (RETRIED_STATUS.has(response.status)) throw new RetryableAnswer(response);
            return response;
          },
          {
            attempts: options.tries ?? 3,
            baseMs: 1000,
            maxMs: 8000,
            sleep: (ms, signal) => clock.sleep(ms, signal),
            random: drawer(seed, `retry:${key}`),
            signal: time.signal,
            retryable: (error) => error instanceof RetryableAnswer || (error instanceof TransportError && error.kind === 'network'),
          },
        );
      } catch (error) {
        if (error instanceof RetryableAnswer) return error.response;
        // A retry that may not be sent (max_requests spent, a wait past the deadline) leaves the answer before it as the final one.
        if (last && (error instanceof BudgetSpent || error instanceof WaitPastDeadline)) return last;
        throw error;
      }
    },
  };
}

function headerOf(response: HttpResponse, name: string): string | undefined {
  return response.headers[name];
}
