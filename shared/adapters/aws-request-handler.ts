import { checkSdkRuntimeOnce } from './aws-sdk-runtime.ts';

/**
 * The HTTP bounds every AWS SDK client of the service is built with. `requestTimeout` alone only
 * logs a warning in @smithy/node-http-handler 4.x: against an endpoint that accepts a connection
 * and never answers, a call stayed pending past its function's timeout (docs/aws-timeouts.md).
 * `throwOnRequestTimeout` turns it into a TimeoutError that destroys the request; `socketTimeout`
 * also cuts a response body that stalls after its headers (the request timer stops at them).
 */
export interface AttemptBounds {
  /** Milliseconds to open the connection (TCP and TLS). */
  connectionMs: number;
  /** Milliseconds for one attempt, from sending to the response headers; also the idle-socket bound. */
  requestMs: number;
}

/**
 * Options for a client's `requestHandler` (NodeHttpHandler's options) that bound one attempt. The
 * first call of a process also checks that the runtime's HTTP handler is the tested line
 * (aws-sdk-runtime.ts).
 */
export function boundedRequestHandler({ connectionMs, requestMs }: AttemptBounds) {
  checkSdkRuntimeOnce();
  return { connectionTimeout: connectionMs, requestTimeout: requestMs, socketTimeout: requestMs, throwOnRequestTimeout: true };
}

/** API calls on a request path (Scheduler, SQS, Secrets Manager, SES, CloudWatch Logs): short, so a retry fits. */
export const API_ATTEMPT: AttemptBounds = { connectionMs: 1_000, requestMs: 2_000 };
/** S3 object reads and writes (artifacts of up to 50 MiB, export parts). */
export const OBJECT_ATTEMPT: AttemptBounds = { connectionMs: 1_000, requestMs: 10_000 };
/** DynamoDB: a batch write of 25 items or a query page of 1 MB answers in well under this. */
export const TABLE_ATTEMPT: AttemptBounds = { connectionMs: 1_000, requestMs: 5_000 };
