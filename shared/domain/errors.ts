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
    return [{ field: base, message: plainIssueMessage(issue) }];
  });
}

/** zod's own wording ("Invalid input: expected boolean, received string"); a schema's own message is kept. */
const ZOD_DEFAULT = /^(?:Invalid (?:input|option|string|email|URL|union|element|key|value)|Too (?:small|big)|Unrecognized key)/;

const TYPE_WORDS: Record<string, string> = {
  boolean: 'must be true or false (a box to tick)',
  number: 'must be a number',
  int: 'must be a whole number',
  string: 'must be text',
  array: 'must be a list',
  object: 'must be a set of fields',
  date: 'must be a date',
};

const count = (n: number | bigint, one: string, many: string) => `${n} ${Number(n) === 1 ? one : many}`;

/** What a bound applies to: 'string', 'number', 'array', 'set', or another of zod's origins. */
type Origin = string;

/**
 * The words of each kind of field issue, following the field's name ("Rate must be at most 20"):
 * the API's (plainIssueMessage) and the browser's check of a scope before it is sent
 * (web/src/scope-schema.ts), so both say the same thing for the same value.
 */
export const plainWords = {
  required: 'is required',
  type(expected: string): string {
    return TYPE_WORDS[expected] ?? `must be ${/^[aeiou]/.test(expected) ? 'an' : 'a'} ${expected}`;
  },
  tooSmall(origin: Origin, minimum: number | bigint, inclusive = true): string {
    if (origin === 'string') return Number(minimum) <= 1 ? 'is required' : `must be at least ${count(minimum, 'character', 'characters')}`;
    if (origin === 'array' || origin === 'set')
      return Number(minimum) <= 1 ? 'needs at least one item' : `must list at least ${count(minimum, 'item', 'items')}`;
    return inclusive ? `must be at least ${minimum}` : `must be more than ${minimum}`;
  },
  tooBig(origin: Origin, maximum: number | bigint, inclusive = true): string {
    if (origin === 'string') return `must be at most ${count(maximum, 'character', 'characters')}`;
    if (origin === 'array' || origin === 'set') return `may list at most ${count(maximum, 'item', 'items')}`;
    return inclusive ? `must be at most ${maximum}` : `must be less than ${maximum}`;
  },
  format(format: string): string {
    if (format === 'email') return 'must be an email address such as security@example.com';
    if (format === 'url') return 'must be a web address starting with https://';
    return 'is not in the accepted form';
  },
  oneOf(values: readonly unknown[]): string {
    return values.length === 1
      ? `must be ${JSON.stringify(values[0])}`
      : `must be one of ${values.map((value) => JSON.stringify(value)).join(', ')}`;
  },
};

/**
 * A field issue in plain words, following the field's name ("Rate must be at most 20"): what the
 * API answers and the UI shows, so no client has to rephrase zod (issue 41). Messages a schema
 * wrote itself ("Type at least one character to search for.") are kept as written.
 */
export function plainIssueMessage(issue: z.core.$ZodIssue): string {
  if (!ZOD_DEFAULT.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return /received undefined$/.test(issue.message) ? plainWords.required : plainWords.type(issue.expected);
    case 'too_small':
      return plainWords.tooSmall(issue.origin, issue.minimum, issue.inclusive !== false);
    case 'too_big':
      return plainWords.tooBig(issue.origin, issue.maximum, issue.inclusive !== false);
    case 'invalid_format':
      return plainWords.format(issue.format);
    case 'invalid_value':
      return plainWords.oneOf(issue.values);
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    case 'invalid_union':
      return 'is not in any accepted form';
    default:
      return issue.message;
  }
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
