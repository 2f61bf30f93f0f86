import { SQSClient } from '@aws-sdk/client-sqs';

/** Options for {@link makeSqsClient}; region defaults to the Lambda's `AWS_REGION`. */
export interface SqsClientOptions {
  region?: string;
}

/**
 * The SQS client for a composition root. Call it once at module scope so warm invocations reuse
 * the connection.
 *
 * Unlike the Scheduler client, SDK retries stay on (standard mode, 3 attempts): SqsMessageQueue has
 * no retry loop of its own, so this is the only layer, and the SDK's throttling and transient-error
 * handling is what a SendMessage on the request path needs. The socket timeouts keep a hung call
 * from eating the API's latency budget.
 */
export function makeSqsClient(options: SqsClientOptions = {}): SQSClient {
  return new SQSClient({
    ...(options.region === undefined ? {} : { region: options.region }),
    maxAttempts: 3,
    requestHandler: { connectionTimeout: 1_000, requestTimeout: 3_000 },
  });
}
