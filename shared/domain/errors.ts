/**
 * Domain errors. Each carries a stable `code` from DESIGN §3 and no HTTP knowledge;
 * shared/http/error-body.ts maps codes to statuses (STATUS_BY_CODE).
 */
export interface FieldIssue {
  field: string;
  message: string;
}

export abstract class DomainError extends Error {
  abstract readonly code: string;
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
