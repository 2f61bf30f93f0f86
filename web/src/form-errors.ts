import { useEffect, useRef, useState } from 'react';
import { fieldSentence, refusalOf, stillCurrent, type PinnedIssue } from './field-errors.ts';

type Fields = ReadonlyArray<readonly [field: string, label: string, controlId: string]>;

/**
 * A form's errors (docs/web-ui.md, "Form errors"): the browser's sentence for a field wins, else
 * the server's issues still pinned to the field's current value; after an attempt that found any,
 * focus goes to the first invalid field in page order, else to the form's general error.
 */
export function useFormErrors({
  fields,
  values,
  clientError,
  formFieldOf,
}: {
  /** In page order: the form field, its label, its control's id. */
  fields: Fields;
  /** The form's values by form field, as now. */
  values: Record<string, unknown>;
  /** What the browser says about a field, as a sentence. */
  clientError: (field: string) => string | undefined;
  /** The form field a server `details[].field` belongs to. */
  formFieldOf: (serverField: string) => string;
}) {
  const labels = new Map(fields.map(([field, label]) => [field, label]));
  const ids = new Map(fields.map(([field, , id]) => [field, id]));
  const [serverIssues, setServerIssues] = useState<PinnedIssue[]>([]);
  const [formError, setFormError] = useState<string | null>(null);
  const [attempt, setAttempt] = useState(0);
  const formRef = useRef<HTMLFormElement>(null);
  const sent = useRef<Record<string, unknown>>({});
  const current = stillCurrent(serverIssues, values);

  const errorOf = (field: string): string | undefined => {
    const client = clientError(field);
    if (client) return client;
    const found = current.filter((issue) => issue.formField === field);
    return found.length
      ? fieldSentence(
          labels.get(field) ?? field,
          found.map((issue) => issue.message),
        )
      : undefined;
  };

  useEffect(() => {
    if (attempt === 0) return;
    const first = fields.find(([field]) => errorOf(field) !== undefined);
    const control = first && formRef.current?.querySelector<HTMLElement>(`[id="${first[2]}"]`);
    if (control) control.focus();
    else formRef.current?.querySelector<HTMLElement>('.form-error')?.focus();
    // Runs when an attempt asks for it (the counter), not on every keystroke.
  }, [attempt]);

  /** The ids that describe a field's control: its error when it has one, then `others`. */
  const described = (field: string, ...others: string[]) =>
    [errorOf(field) ? `${field}-error` : '', ...others].filter(Boolean).join(' ') || undefined;

  return {
    formRef,
    errorOf,
    formError,
    described,
    /** A field's control props: its id from `fields`, invalid while it has an error, described by it then `others`. */
    control: (field: string, ...others: string[]) => ({
      id: ids.get(field),
      'aria-invalid': !!errorOf(field),
      'aria-describedby': described(field, ...others),
    }),
    /** A `Field`'s props (components.tsx): the label and control id from `fields`, the error and its id. */
    field: (field: string) => ({
      label: labels.get(field) ?? field,
      htmlFor: ids.get(field) ?? field,
      errorId: `${field}-error`,
      error: errorOf(field),
    }),
    /** A `FieldGroup`'s props (components.tsx): the legend from `fields`, described by the error it shows. */
    group: (field: string) => ({
      label: labels.get(field) ?? field,
      describedBy: described(field),
      errorId: `${field}-error`,
      error: errorOf(field),
    }),
    /** A new attempt: what the server refused before is forgotten. */
    begin: () => {
      setServerIssues([]);
      setFormError(null);
    },
    /** The browser stops the attempt: focus on the first invalid field. */
    stop: () => setAttempt((n) => n + 1),
    /** The values being sent: the server's answer is pinned to them. */
    sending: (sentValues: Record<string, unknown>) => {
      sent.current = sentValues;
    },
    /** The server refused: its issues under their fields, the rest above the buttons. */
    refuse: (error: Error) => {
      const refused = refusalOf(error, sent.current, formFieldOf, (field) => labels.has(field));
      setServerIssues(refused.issues);
      setFormError(refused.formError);
      setAttempt((n) => n + 1);
    },
  };
}
