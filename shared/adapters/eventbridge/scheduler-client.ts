import { SchedulerClient, type SchedulerClientConfig } from '@aws-sdk/client-scheduler';
import { API_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/** Options for {@link makeSchedulerClient}; region defaults to the Lambda's `AWS_REGION`. */
export type SchedulerClientOptions = Pick<SchedulerClientConfig, 'region' | 'endpoint' | 'credentials'>;

/**
 * The EventBridge Scheduler client for a composition root. Call it once at module scope so warm
 * invocations reuse the connection.
 *
 * SDK retries are switched off (`maxAttempts: 1`) because EventBridgeTriggerScheduler runs its own
 * backoff loop: stacked, the two layers would multiply (3 SDK attempts x N adapter attempts HTTP
 * calls, each layer sleeping on its own schedule) and blow the API request's latency budget. With
 * one layer the worst case is exactly the adapter's `maxAttempts`, and its delays are the ones the
 * tests pin. The request bounds (aws-request-handler.ts) cut a hung call at API_ATTEMPT's 2 s; the
 * adapter retries it only while another attempt fits its call budget.
 */
export function makeSchedulerClient(options: SchedulerClientOptions = {}): SchedulerClient {
  return new SchedulerClient({ ...options, maxAttempts: 1, requestHandler: boundedRequestHandler(API_ATTEMPT) });
}
