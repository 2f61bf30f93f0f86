import type * as z from 'zod';

/**
 * Domain errors. Each carries a stable `code` from DESIGN §3 and no HTTP knowledge;
 * shared/http/error-body.ts maps codes to statuses (STATUS_BY_CODE).
 */
export interface FieldIssue {
  field: string;
  message: string;
}

/** Flattens a ZodError into field issues, `prefix` naming the parent field. */
export function zodIssues(error: z.ZodError, prefix = ''): FieldIssue[] {
  return error.issues.flatMap((issue) => {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: base ? `${base}.${key}` : key, message: 'is not a known field' }));
    }
    return [{ field: base, message: issue.message }];
  });
}

/**
 * Every code a domain error may carry. shared/http/error-body.ts gives each its status, and a code
 * without one there does not compile (rather than answering a bare 500).
 */
export type DomainErrorCode =
  | 'invalid_json'
  | 'validation_error'
  | 'usage_error'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'quota_exceeded'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'trigger_unavailable'
  | 'dispatch_failed'
  | 'storage_unavailable';

export abstract class DomainError extends Error {
  abstract readonly code: DomainErrorCode;
  readonly details: FieldIssue[];

  constructor(message: string, details: FieldIssue[] = []) {
    super(message);
    this.name = new.target.name;
    this.details = details;
  }
}

export class ValidationError extends DomainError {
  readonly code = 'validation_error';
}

export class InvalidJsonError extends DomainError {
  readonly code = 'invalid_json';
}

export class UnauthenticatedError extends DomainError {
  readonly code = 'unauthenticated';
}

export class ForbiddenError extends DomainError {
  readonly code = 'forbidden';
}

export class NotFoundError extends DomainError {
  readonly code = 'not_found';
}

export class ConflictError extends DomainError {
  readonly code = 'conflict';
}

export class QuotaExceededError extends DomainError {
  readonly code = 'quota_exceeded';
}

export class PayloadTooLargeError extends DomainError {
  readonly code = 'payload_too_large';
}

export class UnsupportedMediaTypeError extends DomainError {
  readonly code = 'unsupported_media_type';
}

/** The trigger scheduler (EventBridge Scheduler or the local one) refused or failed. */
export class TriggerUnavailableError extends DomainError {
  readonly code = 'trigger_unavailable';
}

/** The scan queue refused a message. */
export class DispatchFailedError extends DomainError {
  readonly code = 'dispatch_failed';
}

/**
 * The table could not be read or written (DynamoDB's InternalServerError or ServiceUnavailable
 * after the SDK's retries; locally a full disk under dynalite). The request's writes stopped where
 * the failure met them, and each operation leaves nothing a reader sees half done
 * (docs/disk-full.md).
 */
export class StorageUnavailableError extends DomainError {
  readonly code = 'storage_unavailable';
}
