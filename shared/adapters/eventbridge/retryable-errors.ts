/**
 * Which EventBridge Scheduler failures are worth another attempt. The adapter retries them with
 * the repository's retry loop (lib/retry.ts: full-jitter backoff, injected sleep
 * and random).
 */
import { isServerError, isThrottlingError, isTransientError } from '@smithy/service-error-classification';

/**
 * Throttling, transient and server errors are recognised the way the SDK's own retry strategy
 * does (@smithy/service-error-classification: error codes, 429 and 5xx statuses, `$retryable`
 * traits, reset sockets). Beyond it: Scheduler's own 5xx exception names when they arrive without
 * a status, and a DNS lookup that failed for now. ServiceQuotaExceededException stays absent: the
 * schedules-per-account quota does not free itself within a request, so retrying only delays the 503.
 */
const ALSO_RETRYABLE_NAMES = new Set(['InternalServerException', 'ServiceUnavailableException']);
const ALSO_RETRYABLE_NETWORK_CODES = new Set(['EAI_AGAIN']);

/** The name an SDK (or network) error is known by; `UnknownError` when it carries none. */
export function errorName(error: unknown): string {
  if (error instanceof Error && error.name) return error.name;
  return 'UnknownError';
}

/** Whether a failed Scheduler call may succeed when repeated unchanged. */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const sdkError = error as Parameters<typeof isThrottlingError>[0] & { $fault?: string; code?: string };
  if (isThrottlingError(sdkError) || isTransientError(sdkError) || isServerError(sdkError)) return true;
  if (sdkError.$fault === 'server' || ALSO_RETRYABLE_NAMES.has(error.name)) return true;
  return sdkError.code !== undefined && ALSO_RETRYABLE_NETWORK_CODES.has(sdkError.code);
}
