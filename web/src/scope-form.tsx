import type { ReactNode } from 'react';
import { FieldError } from './components.tsx';
import { useCredentials, useScanTypes } from './queries.ts';
import { useCan } from './session.ts';
import {
  emptyRow,
  labelOf,
  rowsOf,
  scopeSummary,
  valueWords,
  type DraftRow,
  type RowColumn,
  type ScopeDraft,
  type ScopeField,
} from './scope-schema.ts';

/** The control id of a scope field in a form whose ids start with `idPrefix`. */
export const scopeControlId = (idPrefix: string, key: string) => `${idPrefix}-scope-${key}`;

/**
 * A scan type's options, rendered from its scope schema (scope-schema.ts): a checkbox for a
 * boolean with a default, Default/Yes/No for one without, a select for an enum, a number box with
 * its bounds, a text box (a text area for long texts and lists, one per line), a table of rows for a
 * list of flat records (a control per column, Add and Remove), and a JSON text area for what a
 * simple control cannot hold. Each hint is the schema's description.
 */
export function ScopeFields({
  fields,
  draft,
  onChange,
  errorOf,
  idPrefix,
  legend = 'Options',
  credentials,
}: {
  fields: ScopeField[];
  draft: ScopeDraft;
  onChange: (draft: ScopeDraft) => void;
  errorOf: (key: string) => string | undefined;
  idPrefix: string;
  legend?: string;
  /** The tenant's credentials of the engine's kinds: a field named `credential` picks one of them. */
  credentials?: ReadonlyArray<CredentialChoice>;
}) {
  if (fields.length === 0) return null;
  return (
    <fieldset className="fieldset scope-fields">
      <legend>{legend}</legend>
      <p className="hint">Left empty, an option keeps the scanner&apos;s default.</p>
      {fields.map((field) => (
        <ScopeControl
          key={field.key}
          field={field}
          value={draft[field.key] ?? ''}
          onChange={(value) => onChange({ ...draft, [field.key]: value })}
          error={errorOf(field.key)}
          id={scopeControlId(idPrefix, field.key)}
          credentials={field.key === 'credential' ? credentials : undefined}
        />
      ))}
    </fieldset>
  );
}

/** A credential as GET /api/credentials/ lists it (never its secret). */
export interface CredentialChoice {
  alias: string;
  kind: string;
  allowed_hosts: readonly string[];
}

function ScopeControl({
  field,
  value,
  onChange,
  error,
  id,
  credentials,
}: {
  field: ScopeField;
  value: string | boolean;
  onChange: (value: string | boolean) => void;
  error: string | undefined;
  id: string;
  credentials?: ReadonlyArray<CredentialChoice>;
}) {
  const describedBy = [error ? `${id}-error` : '', field.hint ? `${id}-hint` : ''].filter(Boolean).join(' ') || undefined;
  const hint = field.hint && (
    <span id={`${id}-hint`} className="hint">
      {field.hint}
    </span>
  );
  const common = { id, 'aria-invalid': !!error, 'aria-describedby': describedBy };
  if (field.kind === 'choices') {
    // A checkbox per value of the enum, in a group named by the option: none checked keeps the default.
    const checked = new Set(typeof value === 'string' && value !== '' ? value.split('\n') : []);
    return (
      <fieldset id={id} className="fieldset scope-choices" aria-describedby={describedBy} tabIndex={-1}>
        <legend>{field.label}</legend>
        <div className="scope-choice-list">
          {field.options.map((option) => (
            <div className="check" key={option}>
              <input
                id={`${id}-${option}`}
                type="checkbox"
                aria-invalid={!!error}
                checked={checked.has(option)}
                onChange={(e) => {
                  const next = new Set(checked);
                  if (e.target.checked) next.add(option);
                  else next.delete(option);
                  onChange(field.options.filter((each) => next.has(each)).join('\n'));
                }}
              />
              <label htmlFor={`${id}-${option}`}>{labelOf(option, {})}</label>
            </div>
          ))}
        </div>
        {hint}
        <FieldError id={`${id}-error`} message={error} />
      </fieldset>
    );
  }
  if (field.kind === 'rows') {
    return (
      <RowsControl
        field={field}
        rows={rowsOf(value)}
        onChange={(rows) => onChange(rows.length === 0 ? '' : JSON.stringify(rows))}
        error={error}
        id={id}
        describedBy={describedBy}
        hint={hint}
      />
    );
  }
  if (field.kind === 'boolean' && field.default !== undefined) {
    return (
      <div className="check">
        <input {...common} type="checkbox" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
        <label htmlFor={id}>{field.label}</label>
        {hint}
        <FieldError id={`${id}-error`} message={error} />
      </div>
    );
  }
  const text = typeof value === 'string' ? value : '';
  let control;
  if (credentials && field.kind === 'string') {
    control = (
      <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
        <option value="">None</option>
        {credentials.map((entry) => (
          <option key={entry.alias} value={entry.alias}>
            {entry.alias} ({entry.allowed_hosts.join(', ')})
          </option>
        ))}
        {text !== '' && !credentials.some((entry) => entry.alias === text) && <option value={text}>{text}</option>}
      </select>
    );
  } else if (field.kind === 'boolean' || field.kind === 'enum') {
    const options =
      field.kind === 'boolean'
        ? [['true', 'Yes'] as const, ['false', 'No'] as const]
        : field.options.map((option) => [option, valueWords(option)] as const);
    control = (
      <select {...common} value={text} onChange={(e) => onChange(e.target.value)}>
        <option value="">Default{field.kind === 'enum' && field.default ? ` (${field.default})` : ''}</option>
        {options.map(([option, label]) => (
          <option key={option} value={option}>
            {label}
          </option>
        ))}
      </select>
    );
  } else if (field.kind === 'number') {
    control = (
      <input
        {...common}
        type="text"
        inputMode="numeric"
        value={text}
        onChange={(e) => onChange(e.target.value)}
        placeholder={field.default !== undefined ? String(field.default) : undefined}
        autoComplete="off"
      />
    );
  } else if (field.kind === 'string' && !field.multiline) {
    control = (
      <input
        {...common}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        placeholder={field.default}
        spellCheck={false}
        autoComplete="off"
      />
    );
  } else {
    control = (
      <textarea
        {...common}
        className={field.kind === 'json' ? 'mono' : undefined}
        rows={field.kind === 'json' ? 4 : 3}
        value={text}
        onChange={(e) => onChange(e.target.value)}
        spellCheck={false}
      />
    );
  }
  return (
    <div className="field">
      <label htmlFor={id}>
        {field.label}
        {field.kind === 'json' ? ' (JSON)' : ''}
      </label>
      {control}
      {hint}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/**
 * A list of flat records as rows: one control per column, labelled by the column and the row
 * ("Reason, row 2"), a Remove button per row and Add below; the group is named by its legend. A row
 * left empty is not sent (scope-schema.ts recordsOf).
 */
function RowsControl({
  field,
  rows,
  onChange,
  error,
  id,
  describedBy,
  hint,
}: {
  field: Extract<ScopeField, { kind: 'rows' }>;
  rows: DraftRow[];
  onChange: (rows: DraftRow[]) => void;
  error: string | undefined;
  id: string;
  describedBy: string | undefined;
  hint: ReactNode;
}) {
  const set = (index: number, key: string, cell: string | boolean) =>
    onChange(rows.map((row, at) => (at === index ? { ...row, [key]: cell } : row)));
  const full = field.maxItems !== undefined && rows.length >= field.maxItems;
  return (
    <fieldset id={id} className="fieldset scope-rows" aria-describedby={describedBy} tabIndex={-1}>
      <legend>{field.label}</legend>
      {rows.length === 0 ? (
        <p className="hint">None.</p>
      ) : (
        <ol className="scope-row-list">
          {rows.map((row, index) => (
            <li className="scope-row" key={index}>
              {field.columns.map((column) => (
                <RowCell
                  key={column.key}
                  column={column}
                  id={`${id}-${index}-${column.key}`}
                  row={index + 1}
                  value={row[column.key]}
                  invalid={!!error}
                  onChange={(cell) => set(index, column.key, cell)}
                />
              ))}
              <button
                type="button"
                className="button button-small"
                aria-label={`Remove row ${index + 1} of ${field.label}`}
                onClick={() => onChange(rows.filter((_, at) => at !== index))}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
      )}
      <button
        type="button"
        id={`${id}-add`}
        className="button button-small"
        disabled={full}
        onClick={() => onChange([...rows, emptyRow(field.columns)])}
      >
        Add {rows.length === 0 ? 'a row' : 'another row'}
      </button>
      {hint}
      <FieldError id={`${id}-error`} message={error} />
    </fieldset>
  );
}

function RowCell({
  column,
  id,
  row,
  value,
  invalid,
  onChange,
}: {
  column: RowColumn;
  id: string;
  row: number;
  value: string | boolean | undefined;
  invalid: boolean;
  onChange: (cell: string | boolean) => void;
}) {
  const label = `${column.label}${column.required ? '' : ' (optional)'}`;
  if (column.kind === 'boolean') {
    return (
      <div className="check scope-row-cell">
        <input id={id} type="checkbox" aria-invalid={invalid} checked={value === true} onChange={(e) => onChange(e.target.checked)} />
        <label htmlFor={id}>
          {column.label}
          <span className="visually-hidden">, row {row}</span>
        </label>
      </div>
    );
  }
  const text = typeof value === 'string' ? value : '';
  return (
    <div className="field scope-row-cell">
      <label htmlFor={id}>
        {label}
        <span className="visually-hidden">, row {row}</span>
      </label>
      {column.kind === 'enum' ? (
        <select id={id} aria-invalid={invalid} value={text} onChange={(e) => onChange(e.target.value)}>
          <option value="">Choose…</option>
          {column.options!.map((option) => (
            <option key={option} value={option}>
              {option}
            </option>
          ))}
        </select>
      ) : (
        <input
          id={id}
          aria-invalid={invalid}
          value={text}
          inputMode={column.kind === 'number' ? 'numeric' : undefined}
          placeholder={column.schema.format === 'date' ? 'YYYY-MM-DD' : undefined}
          title={column.hint}
          onChange={(e) => onChange(e.target.value)}
          spellCheck={false}
          autoComplete="off"
        />
      )}
    </div>
  );
}

/**
 * A scope in one line, in the form's words ("Ports: 22,6390 · Rate: 50"), for the run history, the
 * edit dialog and the scan page; `inRow` for the Scheduled Scans row: a muted <small> after the
 * target, ellipsized with the row at desktop width (its title has it all), on its own line on a
 * phone. The scan type's schema (GET /api/scan-types/) names each option as its form labels it.
 */
export function ScopeSummary({
  scope,
  scanType,
  inRow = false,
}: {
  scope: Record<string, unknown> | undefined;
  scanType: string;
  inRow?: boolean;
}) {
  const engine = useScanTypes().data?.items.find((type) => type.value === scanType)?.engine;
  const summary = scopeSummary(scope, engine?.scope_schema, engine?.artifact_fields);
  return inRow ? (
    <small className="scope-summary scope-summary-row" title={summary}>
      {summary}
    </small>
  ) : (
    <span className="scope-summary" title={summary}>
      {summary}
    </span>
  );
}

/**
 * The tenant's credentials of an engine's kinds (`engine.credential_kinds` of GET /api/scan-types/,
 * from its manifest), for its `credential` option; undefined when the engine takes none.
 */
export function useCredentialChoices(kinds: readonly string[] | undefined): CredentialChoice[] | undefined {
  const wanted = kinds ?? [];
  const credentials = useCredentials(useCan('operator') && wanted.length > 0);
  return wanted.length > 0 ? (credentials.data ?? []).filter((entry) => wanted.includes(entry.kind)) : undefined;
}
