import { ApiError, type FieldIssue } from './api.ts';

/**
 * A server message for a field in plain words. The API's own rules speak already ("fires more
 * often than every 5 minutes"); zod's generic texts ("Too small: expected string to have >=1
 * characters") do not, so they are rephrased here. The result follows the field's label.
 */
export function plainMessage(message: string): string {
  let match: RegExpExecArray | null;
  if (/^Too small: expected string to have >=1 characters?$/.test(message)) return 'is required';
  if (/^Invalid input: expected \w+, received undefined$/.test(message)) return 'is required';
  if ((match = /^Too big: expected string to have <=(\d+) characters?$/.exec(message))) return `must be at most ${match[1]} characters`;
  if ((match = /^Too small: expected string to have >=(\d+) characters?$/.exec(message))) return `must be at least ${match[1]} characters`;
  if ((match = /^Too big: expected array to have <=(\d+) items?$/.exec(message))) return `may list at most ${match[1]}`;
  if (/^Too small: expected array to have >=1 items?$/.test(message)) return 'needs at least one';
  if ((match = /^Too big: expected number to be <=(-?[\d.]+)$/.exec(message))) return `must be at most ${match[1]}`;
  if ((match = /^Too small: expected number to be >=(-?[\d.]+)$/.exec(message))) return `must be at least ${match[1]}`;
  if (/^Invalid input: expected int, received number$/.test(message)) return 'must be a whole number';
  if (/^Invalid string: must match pattern /.test(message)) return 'is not in the accepted form';
  if (/^Invalid URL$/.test(message)) return 'must be a web address starting with https://, such as https://hooks.example.com/scan-service';
  if (/^Invalid email address$/.test(message)) return 'must be an email address such as security@example.com';
  if (/^Invalid option: expected one of/.test(message)) return 'is not one of the choices';
  if ((match = /^Invalid input: expected (\w+)/.exec(message))) return `must be ${/^[aeiou]/.test(match[1]) ? 'an' : 'a'} ${match[1]}`;
  if (/^Unrecognized key/.test(message)) return 'is not a field this form can send';
  return message;
}

/** One sentence per field: its label, then each distinct plain message ("Name is required."). */
export function fieldSentence(label: string, messages: string[]): string {
  const plain = [...new Set(messages.map(plainMessage))];
  // An empty value also fails the value's finer rules; "is required" says all there is to say.
  const shown = plain.includes('is required') ? ['is required'] : plain;
  return `${label} ${shown.join('; ')}.`;
}

/**
 * Server issues that still apply: each is kept with the value its field had when the server
 * answered, and stops showing as soon as that value changes (an error never outlives its cause).
 */
export interface PinnedIssue extends FieldIssue {
  formField: string;
  value: unknown;
}

export function stillCurrent(issues: PinnedIssue[], values: Record<string, unknown>): PinnedIssue[] {
  return issues.filter((issue) => JSON.stringify(values[issue.formField]) === JSON.stringify(issue.value));
}

/**
 * A refused save in a form's terms: the server's field issues the form places (`placed`), each
 * pinned to the value its field had when sent, and one sentence for the rest (or the error's own
 * message when the server named no field).
 */
export function refusalOf(
  error: Error,
  sent: Record<string, unknown>,
  formFieldOf: (field: string) => string,
  placed: (formField: string) => boolean,
): { issues: PinnedIssue[]; formError: string | null } {
  if (!(error instanceof ApiError)) return { issues: [], formError: error.message };
  const pinned = error.details.map((issue) => {
    const formField = formFieldOf(issue.field);
    return { ...issue, formField, value: sent[formField] };
  });
  const unplaced = pinned.filter((issue) => !placed(issue.formField));
  return {
    issues: pinned.filter((issue) => placed(issue.formField)),
    formError:
      unplaced.length > 0
        ? unplaced.map((issue) => `${issue.field} ${plainMessage(issue.message)}`).join('; ')
        : pinned.length === 0
          ? error.message
          : null,
  };
}
