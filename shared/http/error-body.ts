import { DomainError, type DomainErrorCode, type FieldIssue } from '../domain/errors.ts';

/**
 * Status per domain error code (DESIGN §3). Every code has one: a new code left out of this table
 * is a type error, not a silent 500.
 */
export const STATUS_BY_CODE = {
  invalid_json: 400,
  validation_error: 400,
  // The backfill's refusal (an unknown tenant); it reaches no API route today.
  usage_error: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  quota_exceeded: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  trigger_unavailable: 503,
  dispatch_failed: 503,
  storage_unavailable: 503,
} as const satisfies Record<DomainErrorCode, number>;

/** A status a route may declare among its errors (shared/http/routes.ts). */
export type ErrorStatus = (typeof STATUS_BY_CODE)[DomainErrorCode];

export interface ErrorBody {
  error: { code: string; message: string; details: FieldIssue[]; request_id: string };
}

/** Maps any thrown value to a status and the DESIGN §3 error body; unknown errors become a bare 500. */
export function errorResponse(error: unknown, requestId: string): { status: number; body: ErrorBody; exposed: boolean } {
  if (error instanceof DomainError) {
    return {
      status: STATUS_BY_CODE[error.code],
      body: { error: { code: error.code, message: error.message, details: error.details, request_id: requestId } },
      exposed: true,
    };
  }
  return {
    status: 500,
    body: { error: { code: 'internal_error', message: 'internal error', details: [], request_id: requestId } },
    exposed: false,
  };
}
