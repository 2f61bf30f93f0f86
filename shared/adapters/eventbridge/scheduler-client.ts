import { SchedulerClient } from '@aws-sdk/client-scheduler';

/** Options for {@link makeSchedulerClient}; region defaults to the Lambda's `AWS_REGION`. */
export interface SchedulerClientOptions {
  region?: string;
}

/**
 * The EventBridge Scheduler client for a composition root. Call it once at module scope so warm
 * invocations reuse the connection.
 *
 * SDK retries are switched off (`maxAttempts: 1`) because EventBridgeTriggerScheduler runs its own
 * backoff loop: stacked, the two layers would multiply (3 SDK attempts x N adapter attempts HTTP
 * calls, each layer sleeping on its own schedule) and blow the API request's latency budget. With
 * one layer the worst case is exactly the adapter's `maxAttempts`, and its delays are the ones the
 * tests pin. The socket timeouts bound a hung call, which the adapter then retries as a
 * TimeoutError.
 */
export function makeSchedulerClient(options: SchedulerClientOptions = {}): SchedulerClient {
  return new SchedulerClient({
    ...(options.region === undefined ? {} : { region: options.region }),
    maxAttempts: 1,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
  });
}
