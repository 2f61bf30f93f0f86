/**
 * A scan type's options from its scope's JSON Schema (GET /api/scan-types/, `engine.scope_schema`,
 * built from the engine's manifest): the fields a form shows, the text a user types back into a
 * scope, and the browser's check of that scope with the API's own messages (plainWords, or the
 * schema's `x-pattern-message`). No engine is named here: a new engine's options come with its
 * manifest (docs/web-ui.md, "Scan options").
 */
import { plainWords } from '../../shared/domain/errors.ts';
import { fieldSentence } from './field-errors.ts';

export type JsonSchema = Record<string, unknown>;

interface Common {
  key: string;
  label: string;
  /** The schema's description, then its bounds and default in words. */
  hint?: string;
}
export type ScopeField = Common &
  (
    | { kind: 'boolean'; default?: boolean }
    | { kind: 'enum'; options: string[]; default?: string }
    | { kind: 'number'; integer: boolean; min?: number; max?: number; default?: number }
    | { kind: 'string'; schema: JsonSchema; multiline: boolean; default?: string }
    | { kind: 'list'; item: JsonSchema; minItems?: number; maxItems?: number }
    /** A list of an enum's values (llmscan's `families`): a checkbox per value; the draft holds the checked ones, a line each. */
    | { kind: 'choices'; options: string[]; minItems?: number }
    /**
     * A list of flat records (sbom's and dast's `ignore`, ai_red_team's `tools`): a row per record,
     * a control per column. The draft holds the rows as JSON text (each cell as typed), written and
     * read only by this module and the form.
     */
    | { kind: 'rows'; columns: RowColumn[]; maxItems?: number }
    | { kind: 'json'; schema: JsonSchema }
  );

/** One property of a `rows` field's records. */
export interface RowColumn {
  key: string;
  label: string;
  required: boolean;
  kind: 'string' | 'enum' | 'boolean' | 'number';
  schema: JsonSchema;
  /** An enum's values. */
  options?: string[];
  hint?: string;
}

/** A row of a `rows` field as the form holds it: a cell's text, or a checkbox's state. */
export type DraftRow = Record<string, string | boolean>;

/** What the form holds: a checkbox's or a control's text, by scope key. */
export type ScopeDraft = Record<string, string | boolean>;

export interface ScopeIssue {
  field: string;
  message: string;
}

/** Scope keys no form offers: the API refuses them from a user (shared/domain/scope.ts). */
const NOT_OFFERED = new Set(['techniques', 'source_legacy_model', 'source_legacy_id']);

const isObject = (value: unknown): value is JsonSchema => typeof value === 'object' && value !== null && !Array.isArray(value);
/** A value as text: a string as it is, anything else as JSON. */
const textOf = (value: unknown): string => (typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));
const num = (value: unknown) => (typeof value === 'number' ? value : undefined);

/** Words a label spells in capitals. */
const ACRONYMS = new Set([
  'sni',
  'http',
  'https',
  'starttls',
  'tls',
  'dkim',
  'dns',
  'url',
  'id',
  'ids',
  'osv',
  'spdx',
  'sbom',
  'api',
  'pii',
  'rdp',
]);
/** Words with their own spelling. */
const SPELLED: Record<string, string> = { openapi: 'OpenAPI', openai: 'OpenAI' };

/** `connect_timeout_ms` → "Connect timeout (ms)", `sni` → "SNI"; a schema's `title` wins. */
export function labelOf(key: string, schema: JsonSchema): string {
  if (typeof schema.title === 'string') return schema.title;
  const unit = /_(ms|kb|mb|s|days)$/.exec(key);
  const words = (unit ? key.slice(0, -unit[0].length) : key)
    .split('_')
    .map((word) => SPELLED[word] ?? (ACRONYMS.has(word) ? word.toUpperCase() : word))
    .join(' ');
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${unit ? ` (${unit[1]})` : ''}`;
}

function hintOf(schema: JsonSchema, extra: string[]): string | undefined {
  const description = typeof schema.description === 'string' ? schema.description : '';
  // A description may end with its own full stop: the parts are joined with one, never two.
  const parts = [description, ...extra]
    .map((part) => part.replace(/\.$/, ''))
    .filter(Boolean)
    // "max_tokens asked of…" starts with a name as the API spells it: kept so.
    .map((part) => (/^\S*_/.test(part) ? part : `${part.charAt(0).toUpperCase()}${part.slice(1)}`));
  return parts.length ? `${parts.join('. ')}.` : undefined;
}

/** The string branch of a `string | list` union (netscan's `ports`): the form sends the text. */
function stringBranch(schema: JsonSchema): JsonSchema | undefined {
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf.filter(isObject) : [];
  return branches.find((branch) => branch.type === 'string');
}

/**
 * The fields a form renders for a scope schema, in the schema's order. `artifactKeys` (the engine's
 * `artifact_fields`) are left out: their ids come from uploaded files (web/src/uploads.ts), not typed.
 */
export function scopeFieldsOf(schema: JsonSchema | null | undefined, artifactKeys: Iterable<string> = []): ScopeField[] {
  const properties = schema && isObject(schema.properties) ? schema.properties : {};
  const skipped = new Set(artifactKeys);
  return Object.entries(properties)
    .filter(([key, property]) => !NOT_OFFERED.has(key) && !skipped.has(key) && isObject(property))
    .map(([key, raw]) => fieldOf(key, raw as JsonSchema));
}

/** A list of numbers (medscan's `dicom_ports`): typed as a list, sent as numbers. */
const isNumeric = (item: JsonSchema) => item.type === 'integer' || item.type === 'number';

/** A list whose items cannot hold a comma (DKIM selectors) also splits on commas: "s1, google". */
export function splitsOnCommas(item: JsonSchema): boolean {
  if (isNumeric(item)) return true;
  return typeof item.pattern === 'string' && !new RegExp(item.pattern).test(',') && !new RegExp(item.pattern).test('a,b');
}

function fieldOf(key: string, schema: JsonSchema): ScopeField {
  const label = labelOf(key, schema);
  const text = stringBranch(schema);
  const type = schema.type ?? text?.type;
  if (type === 'boolean') {
    const fallback = typeof schema.default === 'boolean' ? schema.default : undefined;
    return { key, label, kind: 'boolean', default: fallback, hint: hintOf(schema, []) };
  }
  if (type === 'string' && Array.isArray(schema.enum)) {
    const options = schema.enum.map(String);
    return {
      key,
      label,
      kind: 'enum',
      options,
      default: typeof schema.default === 'string' ? schema.default : undefined,
      hint: hintOf(schema, []),
    };
  }
  if (type === 'integer' || type === 'number') {
    const min = num(schema.minimum);
    const max = num(schema.maximum);
    const bounds =
      min !== undefined && max !== undefined
        ? `From ${min} to ${max}`
        : min !== undefined
          ? `At least ${min}`
          : max !== undefined
            ? `At most ${max}`
            : '';
    const fallback = num(schema.default);
    return {
      key,
      label,
      kind: 'number',
      integer: type === 'integer',
      min,
      max,
      default: fallback,
      hint: hintOf(schema, [bounds, fallback !== undefined ? `default ${fallback}` : '']),
    };
  }
  if (type === 'string') {
    const own = text ?? schema;
    const fallback = typeof schema.default === 'string' ? schema.default : undefined;
    return {
      key,
      label,
      kind: 'string',
      schema: own,
      // A text longer than a line of ports or globs (PEM roots: 15,000) gets a text area.
      multiline: (num(own.maxLength) ?? 0) > 5000,
      default: fallback,
      hint: hintOf(schema, [fallback !== undefined ? `default ${fallback}` : '']),
    };
  }
  if (
    type === 'array' &&
    isObject(schema.items) &&
    ((schema.items.type === 'string' && !Array.isArray(schema.items.enum)) || isNumeric(schema.items))
  ) {
    const maxItems = num(schema.maxItems);
    return {
      key,
      label,
      kind: 'list',
      item: schema.items,
      minItems: num(schema.minItems),
      maxItems,
      hint: hintOf(schema, [
        `${splitsOnCommas(schema.items) ? 'One per line or separated by commas' : 'One per line'}${maxItems !== undefined ? `, at most ${maxItems}` : ''}`,
      ]),
    };
  }
  if (type === 'array' && isObject(schema.items) && Array.isArray(schema.items.enum)) {
    return {
      key,
      label,
      kind: 'choices',
      options: schema.items.enum.map(String),
      minItems: num(schema.minItems),
      hint: hintOf(schema, []),
    };
  }
  const columns = type === 'array' && isObject(schema.items) ? rowColumnsOf(schema.items) : null;
  if (columns) return { key, label, kind: 'rows', columns, maxItems: num(schema.maxItems), hint: hintOf(schema, []) };
  return { key, label, kind: 'json', schema, hint: hintOf(schema, ['As JSON']) };
}

/** The columns of a record whose every property is a string, an enum, a boolean or a number; null for any other shape. */
function rowColumnsOf(item: JsonSchema): RowColumn[] | null {
  if (item.type !== 'object' || !isObject(item.properties)) return null;
  const required = new Set(Array.isArray(item.required) ? item.required.map(String) : []);
  const columns: RowColumn[] = [];
  for (const [key, property] of Object.entries(item.properties)) {
    if (!isObject(property)) return null;
    const common = { key, label: labelOf(key, property), required: required.has(key), schema: property, hint: hintOf(property, []) };
    if (property.type === 'string' && Array.isArray(property.enum))
      columns.push({ ...common, kind: 'enum', options: property.enum.map(String) });
    else if (property.type === 'string') columns.push({ ...common, kind: 'string' });
    else if (property.type === 'boolean') columns.push({ ...common, kind: 'boolean' });
    else if (isNumeric(property)) columns.push({ ...common, kind: 'number' });
    else return null;
  }
  return columns.length > 0 ? columns : null;
}

/** A `rows` field's draft text as rows (none for empty or unreadable text). */
export function rowsOf(text: string | boolean | undefined): DraftRow[] {
  if (typeof text !== 'string' || text === '') return [];
  try {
    const rows: unknown = JSON.parse(text);
    return Array.isArray(rows) ? rows.filter((row): row is DraftRow => isObject(row)) : [];
  } catch {
    return [];
  }
}

/** An empty row of a `rows` field: every box empty, every checkbox off. */
export const emptyRow = (columns: readonly RowColumn[]): DraftRow =>
  Object.fromEntries(columns.map((column) => [column.key, column.kind === 'boolean' ? false : '']));

/** A record as the form's row: each value as its text, a boolean as itself. */
const rowOf = (columns: readonly RowColumn[], record: unknown): DraftRow =>
  Object.fromEntries(
    columns.map((column) => {
      const value = isObject(record) ? record[column.key] : undefined;
      return [column.key, column.kind === 'boolean' ? value === true : value === undefined ? '' : textOf(value)];
    }),
  );

/**
 * The records a `rows` field's rows say: a row left empty is dropped, an empty optional cell left
 * out; a required cell left empty, or a number that is not one, is an issue at
 * `scope.<key>.<record>.<column>` (the API's path for the same record).
 */
function recordsOf(
  field: Extract<ScopeField, { kind: 'rows' }>,
  rows: DraftRow[],
): { records: Record<string, unknown>[]; issues: ScopeIssue[] } {
  const records: Record<string, unknown>[] = [];
  const issues: ScopeIssue[] = [];
  for (const row of rows) {
    const filled = field.columns.some((column) =>
      column.kind === 'boolean' ? row[column.key] === true : String(row[column.key] ?? '').trim() !== '',
    );
    if (!filled) continue;
    const at = `scope.${field.key}.${records.length}`;
    const record: Record<string, unknown> = {};
    for (const column of field.columns) {
      const cell = row[column.key];
      if (column.kind === 'boolean') {
        if (cell === true || column.required) record[column.key] = cell === true;
        continue;
      }
      const text = typeof cell === 'string' ? cell.trim() : '';
      if (text === '') {
        if (column.required) issues.push({ field: `${at}.${column.key}`, message: plainWords.required });
      } else if (column.kind === 'number') {
        if (!/^-?\d+(\.\d+)?$/.test(text)) issues.push({ field: `${at}.${column.key}`, message: plainWords.type('number') });
        else record[column.key] = Number(text);
      } else record[column.key] = text;
    }
    records.push(record);
  }
  return { records, issues };
}

/** The form's text for a scope (a scope the form did not write shows as it is). */
export function draftOf(fields: ScopeField[], scope: Record<string, unknown> = {}): ScopeDraft {
  const draft: ScopeDraft = {};
  for (const field of fields) {
    const value = scope[field.key];
    if (field.kind === 'boolean')
      draft[field.key] =
        field.default === undefined ? (value === undefined ? '' : textOf(value)) : value === undefined ? field.default : value === true;
    else if (value === undefined) draft[field.key] = '';
    else if ((field.kind === 'list' || field.kind === 'choices') && Array.isArray(value)) draft[field.key] = value.map(textOf).join('\n');
    else if (field.kind === 'rows' && Array.isArray(value))
      draft[field.key] = JSON.stringify(value.map((record) => rowOf(field.columns, record)));
    else if (field.kind === 'json' || typeof value === 'object') draft[field.key] = JSON.stringify(value, null, 2);
    else draft[field.key] = textOf(value);
  }
  return draft;
}

/**
 * The scope a draft says: an empty control leaves its key out (the engine's default), a checkbox
 * is sent only when it differs from the schema's default. Text that is not a number or not JSON is
 * an issue, as is everything the schema refuses (checkScopeAgainst).
 */
export function scopeFromDraft(fields: ScopeField[], draft: ScopeDraft): { scope: Record<string, unknown>; issues: ScopeIssue[] } {
  const scope: Record<string, unknown> = {};
  const issues: ScopeIssue[] = [];
  for (const field of fields) {
    const raw = draft[field.key];
    const field_ = `scope.${field.key}`;
    if (field.kind === 'rows') {
      const { records, issues: rowIssues } = recordsOf(field, rowsOf(raw));
      issues.push(...rowIssues);
      if (records.length > 0) scope[field.key] = records;
      continue;
    }
    if (field.kind === 'boolean') {
      if (typeof raw === 'boolean') {
        if (raw !== (field.default ?? false)) scope[field.key] = raw;
      } else if (raw === 'true' || raw === 'false') scope[field.key] = raw === 'true';
      continue;
    }
    const text = typeof raw === 'string' ? raw.trim() : '';
    if (text === '') continue;
    if (field.kind === 'number') {
      const value = Number(text);
      if (!/^-?\d+(\.\d+)?$/.test(text) || !Number.isFinite(value)) issues.push({ field: field_, message: plainWords.type('number') });
      else scope[field.key] = value;
    } else if (field.kind === 'choices') {
      // In the schema's order, whatever order they were checked in.
      const checked = new Set(text.split('\n'));
      scope[field.key] = field.options.filter((option) => checked.has(option));
    } else if (field.kind === 'list') {
      const items = text
        .split(splitsOnCommas(field.item) ? /[\n,]/ : '\n')
        .map((line) => line.trim())
        .filter(Boolean);
      if (!isNumeric(field.item)) scope[field.key] = items;
      else {
        const wrong = items.findIndex((item) => !/^-?\d+(\.\d+)?$/.test(item));
        if (wrong >= 0) issues.push({ field: `${field_}.${wrong}`, message: plainWords.type('number') });
        else scope[field.key] = items.map(Number);
      }
    } else if (field.kind === 'json') {
      try {
        scope[field.key] = JSON.parse(text);
      } catch {
        issues.push({ field: field_, message: 'must be valid JSON' });
      }
    } else {
      // A long text (PEM roots) keeps its lines as typed; a short one loses its outer spaces.
      scope[field.key] = field.kind === 'string' && field.multiline ? String(raw) : text;
    }
  }
  return { scope, issues: [...issues, ...checkScopeAgainst(fields, scope)] };
}

/** A number against its schema (a list's item), in the API's words. */
function numberIssues(schema: JsonSchema, value: number, field: string): ScopeIssue[] {
  const issues: ScopeIssue[] = [];
  const min = num(schema.minimum);
  const max = num(schema.maximum);
  if (schema.type === 'integer' && !Number.isInteger(value)) issues.push({ field, message: plainWords.type('int') });
  if (min !== undefined && value < min) issues.push({ field, message: plainWords.tooSmall('number', min) });
  if (max !== undefined && value > max) issues.push({ field, message: plainWords.tooBig('number', max) });
  return issues;
}

/** A string against its schema, in the API's words for the same value (shared/domain/errors.ts plainWords). */
function stringIssues(schema: JsonSchema, value: string, field: string): ScopeIssue[] {
  const issues: ScopeIssue[] = [];
  const min = num(schema.minLength);
  const max = num(schema.maxLength);
  if (min !== undefined && value.length < min) issues.push({ field, message: plainWords.tooSmall('string', min) });
  if (max !== undefined && value.length > max) issues.push({ field, message: plainWords.tooBig('string', max) });
  if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern).test(value)) {
    const own = schema['x-pattern-message'];
    const message =
      typeof own === 'string' ? own.replace('{{input}}', JSON.stringify(value.slice(0, 64)).slice(1, -1)) : plainWords.format('regex');
    issues.push({ field, message });
  }
  return issues;
}

/**
 * The browser's check of a scope against the fields' schemas, with the messages the API gives
 * (shared/domain/scope.ts passes zod's issues through): bounds, lengths, patterns, list sizes. What
 * JSON Schema cannot say (netscan's port grammar, a JSON field's inside) is left to the API, whose
 * answer lands under the same field.
 */
export function checkScopeAgainst(fields: ScopeField[], scope: Record<string, unknown>): ScopeIssue[] {
  const issues: ScopeIssue[] = [];
  for (const field of fields) {
    const value = scope[field.key];
    const at = `scope.${field.key}`;
    if (value === undefined) continue;
    if (field.kind === 'number' && typeof value === 'number') {
      if (field.integer && !Number.isInteger(value)) issues.push({ field: at, message: plainWords.type('int') });
      if (field.min !== undefined && value < field.min) issues.push({ field: at, message: plainWords.tooSmall('number', field.min) });
      if (field.max !== undefined && value > field.max) issues.push({ field: at, message: plainWords.tooBig('number', field.max) });
    } else if (field.kind === 'string' && typeof value === 'string') {
      issues.push(...stringIssues(field.schema, value, at));
    } else if (field.kind === 'enum' && !field.options.includes(textOf(value))) {
      issues.push({ field: at, message: plainWords.oneOf(field.options) });
    } else if (field.kind === 'list' && Array.isArray(value)) {
      if (field.minItems !== undefined && value.length < field.minItems)
        issues.push({ field: at, message: plainWords.tooSmall('array', field.minItems) });
      if (field.maxItems !== undefined && value.length > field.maxItems)
        issues.push({ field: at, message: plainWords.tooBig('array', field.maxItems) });
      value.forEach((item, index) =>
        issues.push(
          ...(typeof item === 'number'
            ? numberIssues(field.item, item, `${at}.${index}`)
            : stringIssues(field.item, textOf(item), `${at}.${index}`)),
        ),
      );
    } else if (field.kind === 'choices' && Array.isArray(value)) {
      if (field.minItems !== undefined && value.length < field.minItems)
        issues.push({ field: at, message: plainWords.tooSmall('array', field.minItems) });
    } else if (field.kind === 'rows' && Array.isArray(value)) {
      if (field.maxItems !== undefined && value.length > field.maxItems)
        issues.push({ field: at, message: plainWords.tooBig('array', field.maxItems) });
      value.forEach((record, index) => {
        for (const column of field.columns) {
          const cell = isObject(record) ? record[column.key] : undefined;
          const cellAt = `${at}.${index}.${column.key}`;
          if (cell === undefined) continue;
          if (column.kind === 'enum' && !column.options!.includes(textOf(cell)))
            issues.push({ field: cellAt, message: plainWords.oneOf(column.options!) });
          else if (column.kind === 'string' && typeof cell === 'string') issues.push(...stringIssues(column.schema, cell, cellAt));
          else if (column.kind === 'number' && typeof cell === 'number') issues.push(...numberIssues(column.schema, cell, cellAt));
        }
      });
    } else if (field.kind === 'json' && field.schema.type === 'array' && !Array.isArray(value)) {
      issues.push({ field: at, message: plainWords.type('array') });
    }
  }
  return issues;
}

/** An artifact field of an engine (`artifact_fields` of GET /api/scan-types/). */
export type ArtifactFields = Readonly<Record<string, { purpose: string; many: boolean }>>;

/** An enum's value as a reader says it: `openai_chat` → "OpenAI chat"; a one-word value (smtp) as it is. */
export const valueWords = (value: string): string => (value.includes('_') ? labelOf(value, {}) : value);

/** A value in words: on/off, a list with commas, a long text cut, a list of objects counted. */
function valueInWords(value: unknown, property: JsonSchema): string {
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  if (Array.isArray(value))
    return value.every((item) => typeof item !== 'object')
      ? value.join(', ')
      : `${value.length} ${value.length === 1 ? 'entry' : 'entries'}`;
  // An enum's value in words (openai_chat → "OpenAI chat"); any other text as typed (a branch feature_x).
  const text = typeof value === 'string' && Array.isArray(property.enum) ? valueWords(value) : textOf(value);
  return text.length > 40 ? `${text.slice(0, 37)}…` : text;
}

/**
 * A scope in a line, in the form's words: `Ports: 22,6390 · Rate: 50 · History: off` (what the
 * schedule row, the edit dialog, the run history and the scan page show). Each key is named by its
 * field's label (the schema's title, else its key in words); an artifact field counts its files.
 */
export function scopeSummary(
  scope: Record<string, unknown> | undefined,
  schema?: JsonSchema | null,
  artifacts: ArtifactFields = {},
): string {
  const entries = Object.entries(scope ?? {}).filter(([key]) => !NOT_OFFERED.has(key));
  if (entries.length === 0) return 'Default options';
  const properties = schema && isObject(schema.properties) ? schema.properties : {};
  // In the form's order (the schema's), whatever order the scope was stored in.
  const order = Object.keys(properties);
  const rank = (key: string) => (order.includes(key) ? order.indexOf(key) : order.length);
  return entries
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([key, value]) => {
      const property = isObject(properties[key]) ? properties[key] : {};
      const label = labelOf(key, property);
      if (key in artifacts) {
        const count = Array.isArray(value) ? value.length : 1;
        return `${label}: ${count} ${count === 1 ? 'file' : 'files'}`;
      }
      return `${label}: ${valueInWords(value, property)}`;
    })
    .join(' · ');
}

/**
 * A field's error sentence from scope issues (the browser's or the API's, `scope.<key>…`):
 * "Rate must be at most 5000." — the same sentence whichever side found it.
 */
export function scopeErrorOf(fields: ScopeField[], issues: ScopeIssue[]) {
  return (key: string): string | undefined => {
    const messages = issues
      .filter((issue) => issue.field === `scope.${key}` || issue.field.startsWith(`scope.${key}.`))
      .map((issue) => issue.message);
    const label = fields.find((field) => field.key === key)?.label ?? key;
    return messages.length ? fieldSentence(label, messages) : undefined;
  };
}

/** A regex source for a text taken as it is. */
const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The options a sentence names, by each field's label in words (the Ask to scan prompt):
 * "ports 22,6390", "rate 50", "branch dev", "starttls smtp", "without history" / "with history".
 * A list takes one comma-separated word; a JSON field is not read from words.
 */
export function optionsFromWords(fields: ScopeField[], words: string): Record<string, unknown> {
  // Values keep their case (a branch, a credential's name); the option names are matched in any case.
  const text = ` ${words} `;
  const scope: Record<string, unknown> = {};
  for (const field of fields) {
    const name = literal(field.label.toLowerCase().replace(/\s*\([^)]*\)$/, ''));
    // A number may carry its label's unit: "connect timeout 800ms", "max key age 90 days".
    const unit = /\(([^)]*)\)$/.exec(field.label)?.[1];
    if (field.kind === 'boolean') {
      if (new RegExp(`\\b(?:without|no) ${name}\\b`, 'i').test(text)) scope[field.key] = false;
      else if (new RegExp(`\\bwith ${name}\\b`, 'i').test(text)) scope[field.key] = true;
      continue;
    }
    if (field.kind === 'json' || field.kind === 'choices' || field.kind === 'rows') continue;
    const match = new RegExp(`\\b${name}:? (\\S+)`, 'i').exec(text);
    if (!match) continue;
    const value = match[1].replace(/[,;]+$/, '');
    if (field.kind === 'number') {
      const number = new RegExp(`^(\\d+(?:\\.\\d+)?)(?:${unit ? literal(unit) : ''})?$`, 'i').exec(value);
      if (number) scope[field.key] = Number(number[1]);
    } else if (field.kind === 'list') {
      const items = value.split(',').filter(Boolean);
      scope[field.key] = isNumeric(field.item) && items.every((item) => /^\d+$/.test(item)) ? items.map(Number) : items;
    } else if (field.kind === 'enum') {
      // "api openai" is openai_chat: a value's first word names the one option it starts.
      const lower = value.toLowerCase();
      const starting = field.options.filter((option) => option.toLowerCase().startsWith(`${lower}_`));
      scope[field.key] = field.options.includes(lower) ? lower : starting.length === 1 ? starting[0] : value;
    } else scope[field.key] = value;
  }
  return scope;
}
