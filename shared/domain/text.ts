import * as z from 'zod';

/**
 * C0 and C1 control characters (tab, LF and CR are allowed where a text may span lines), and the
 * bidi embeddings, overrides and isolates that make a name display as something it is not
 * (Trojan Source, CVE-2021-42574).
 */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/u;
const LINE_BREAKS = /[\t\n\r]/u;
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;
/** Whitespace and invisible format characters (zero-width space, joiners, BOM, soft hyphen…). */
const INVISIBLE_ONLY = /^[\p{White_Space}\p{Cf}]*$/u;

/** A surrogate half without its other half: not encodable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True when the string is well-formed UTF-16 (String.prototype.isWellFormed, ES2024). */
export function isWellFormedText(value: string): boolean {
  return !LONE_SURROGATE.test(value);
}

/** Why a human-facing text is refused, or null when it is acceptable. */
export function textProblem(value: string, { multiline }: { multiline: boolean }): string | null {
  if (!isWellFormedText(value)) return 'must be valid Unicode (no lone surrogates)';
  if (CONTROL.test(value) || (!multiline && LINE_BREAKS.test(value))) return 'must not contain control characters';
  if (BIDI_CONTROL.test(value)) return 'must not contain bidirectional override characters';
  return null;
}

/** A one-line name: no control or bidi characters, and at least one visible character. */
export function nameText(max: number) {
  return z
    .string()
    .trim()
    .min(1)
    .max(max)
    .superRefine((value, context) => {
      const problem = textProblem(value, { multiline: false }) ?? (INVISIBLE_ONLY.test(value) ? 'must contain a visible character' : null);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    });
}

/** A free text that may span lines: no other control characters, no bidi overrides. */
export function descriptionText(max: number) {
  return z
    .string()
    .max(max)
    .superRefine((value, context) => {
      const problem = textProblem(value, { multiline: true });
      if (problem) context.addIssue({ code: 'custom', message: problem });
    });
}

/**
 * The file name a client gives its upload: one line without path separators, control or bidi
 * characters (`invoice\u202Efdp.exe` displays as `invoiceexe.pdf`), and a visible character.
 * Never a path: the stored key is built from the tenant and the id.
 */
export function fileNameText(max: number) {
  return z
    .string()
    .min(1)
    .max(max)
    .regex(/^[^/\\]+$/, 'must be a file name without path separators')
    .superRefine((value, context) => {
      const problem = textProblem(value, { multiline: false }) ?? (INVISIBLE_ONLY.test(value) ? 'must contain a visible character' : null);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    });
}
