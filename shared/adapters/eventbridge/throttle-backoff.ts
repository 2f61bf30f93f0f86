/**
 * Backoff for EventBridge Scheduler calls: which failures are worth another attempt, and how long
 * to wait before it. Pure functions so the adapter's retry loop is testable with an injected
 * `random`.
 */

/**
 * Errors that mean "the service is busy or briefly broken, the same request may succeed later".
 * ServiceQuotaExceededException is deliberately absent: the schedules-per-account quota does not
 * free itself within a request, so retrying only delays the 503.
 */
const RETRYABLE_ERROR_NAMES = new Set([
  'ThrottlingException',
  'TooManyRequestsException',
  'InternalServerException',
  'ServiceUnavailableException',
  'RequestTimeout',
  'RequestTimeoutException',
  'TimeoutError',
]);

/** Socket-level failures the SDK surfaces without an HTTP status. */
const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

/** The name an SDK (or network) error is known by; `UnknownError` when it carries none. */
export function errorName(error: unknown): string {
  if (error instanceof Error && error.name) return error.name;
  return 'UnknownError';
}

/** Whether a failed Scheduler call may succeed when repeated unchanged. */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (RETRYABLE_ERROR_NAMES.has(error.name)) return true;
  const details = error as Error & { $fault?: string; $metadata?: { httpStatusCode?: number }; code?: string };
  if (details.$fault === 'server') return true;
  const status = details.$metadata?.httpStatusCode;
  if (status !== undefined && status >= 500) return true;
  return details.code !== undefined && RETRYABLE_NETWORK_CODES.has(details.code);
}

/** Parameters of exponential backoff with full jitter. */
export interface BackoffPolicy {
  /** Delay ceiling before the first retry; doubles with each further retry. */
  baseDelayMs: number;
  /** Upper bound on any single delay, so a long retry chain stays inside a request's budget. */
  maxDelayMs: number;
}

/**
 * Delay before retry number `retry` (1 = the first retry): uniform in
 * `[0, min(maxDelayMs, baseDelayMs * 2^(retry-1)))` ("full jitter"), which spreads concurrent
 * callers that were throttled together instead of letting them retry in lockstep.
 */
export function backoffDelayMs(retry: number, policy: BackoffPolicy, random: () => number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}
