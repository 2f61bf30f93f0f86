import { SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import { API_ATTEMPT, boundedRequestHandler } from '../aws-request-handler.ts';

/** Options for {@link makeSqsClient}; region defaults to the Lambda's `AWS_REGION`. */
export type SqsClientOptions = Pick<SQSClientConfig, 'region' | 'endpoint' | 'credentials'>;

/**
 * The SQS client for a composition root. Call it once at module scope so warm invocations reuse
 * the connection.
 *
 * Unlike the Scheduler client, SDK retries stay on (standard mode, 3 attempts): SqsMessageQueue has
 * no retry loop of its own, so this is the only layer, and the SDK's throttling and transient-error
 * handling is what a SendMessage on the request path needs. The request bounds keep a hung call
 * from eating the API's latency budget: 3 attempts of at most 2 s, 6 s and the backoff, inside the
 * scans function's 20 s.
 */
export function makeSqsClient(options: SqsClientOptions = {}): SQSClient {
  return new SQSClient({ ...options, maxAttempts: 3, requestHandler: boundedRequestHandler(API_ATTEMPT) });
}
