import { DomainError, type FieldIssue } from '../domain/errors.ts';

/** Status per domain error code (DESIGN §3). */
export const STATUS_BY_CODE: Record<string, number> = {
  invalid_json: 400,
  validation_error: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  quota_exceeded: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  trigger_unavailable: 503,
  dispatch_failed: 503,
  internal_error: 500,
};

export interface ErrorBody {
  error: { code: string; message: string; details: FieldIssue[]; request_id: string };
}

/** Maps any thrown value to a status and the DESIGN §3 error body; unknown errors become a bare 500. */
export function errorResponse(error: unknown, requestId: string): { status: number; body: ErrorBody; exposed: boolean } {
  if (error instanceof DomainError && error.code in STATUS_BY_CODE) {
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
