import { STATUS_BY_CODE } from '../../shared/http/error-body.ts';
import type { RawReply } from './raw-client.ts';

/** Text that only a leaked stack trace or internal detail would put in an answer. */
const LEAK = /\n\s+at |node_modules|\/work\/|file:\/\/|RangeError|TypeError|SyntaxError|ValidationException|dynalite|\bstack\b/;

/** True when the answer carries a stack trace or internal detail. */
export function leaks(reply: RawReply): boolean {
  return LEAK.test(reply.text);
}

/**
 * The codes of the local stand-in for an S3 presigned PUT (`/_local/artifacts/upload`,
 * docs/artifacts.md): S3's refusals, in the DESIGN §3 body shape.
 */
export const UPLOAD_STATUS_BY_CODE: Record<string, number> = {
  signature_does_not_match: 403,
  request_expired: 403,
  upload_used: 403,
  method_not_allowed: 405,
  missing_content_length: 411,
  incomplete_body: 400,
};

/** The API's codes: every domain error's, and the bare 500 of anything else. */
const API_STATUS_BY_CODE: Record<string, number> = { ...STATUS_BY_CODE, internal_error: 500 };

/**
 * Why an error answer is not the DESIGN §3 body for its status, or null when it is:
 * `{"error": {"code", "message", "details": [{field, message}], "request_id"}}`, nothing else, with
 * the code DESIGN maps to that status (`codes`), served as application/json.
 */
export function errorBodyProblem(reply: RawReply, codes: Record<string, number> = API_STATUS_BY_CODE): string | null {
  const body = reply.json;
  if (!String(reply.headers['content-type'] ?? '').startsWith('application/json')) return 'not application/json';
  if (typeof body !== 'object' || body === null || Object.keys(body).join() !== 'error') return 'not {"error": ...}';
  const error = body.error;
  if (typeof error !== 'object' || error === null) return 'error is not an object';
  if (Object.keys(error).sort().join() !== 'code,details,message,request_id') return `error has keys ${Object.keys(error).join()}`;
  if (typeof error.message !== 'string' || typeof error.request_id !== 'string' || error.request_id === '')
    return 'message or request_id missing';
  if (codes[error.code] !== reply.status) return `code ${error.code} does not go with status ${reply.status}`;
  if (!Array.isArray(error.details)) return 'details is not a list';
  for (const detail of error.details) {
    if (typeof detail !== 'object' || detail === null || typeof detail.field !== 'string' || typeof detail.message !== 'string')
      return 'a detail is not {field, message}';
  }
  return null;
}
