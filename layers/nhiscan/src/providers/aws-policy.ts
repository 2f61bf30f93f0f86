/**
 * What an IAM policy document allows, read statement by statement (DESIGN §20): `*` on `*`, a
 * sensitive service's every action on `*`, and the actions that let an identity raise its own
 * privileges. Allow statements only, as written: a Deny elsewhere is not subtracted, so a finding
 * says "this policy allows", which is what it does. A wildcard action that includes a named one
 * (`iam:*`, `iam:Attach*`, `*`) counts as that action.
 */

/** Statements read from one document at most; a longer one is refused as an error, never half-read. */
export const MAX_STATEMENTS = 1000;
/** Characters of one document (AWS allows 6,144 for a managed policy, 10,240 for a role's inline ones). */
export const MAX_DOCUMENT_CHARS = 131_072;

export const SENSITIVE_SERVICES = ['iam', 'kms', 's3', 'sts', 'organizations', 'secretsmanager'] as const;

/** Actions allowed on `*` that let an identity grant itself more. */
const ESCALATION_ON_ANY = [
  'iam:CreatePolicyVersion',
  'iam:AttachUserPolicy',
  'iam:AttachGroupPolicy',
  'iam:AttachRolePolicy',
  'iam:CreateAccessKey',
  'iam:UpdateLoginProfile',
] as const;

export interface Statement {
  effect: string;
  actions?: string[];
  notActions?: string[];
  resources?: string[];
  notResources?: string[];
  hasCondition: boolean;
}

export type ParsedDocument = { ok: true; statements: Statement[] } | { ok: false; message: string };

const strings = (value: unknown): string[] | undefined => {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  return undefined;
};

/** A policy document as IAM returns it: URL-encoded JSON (RFC 3986), or JSON as some servers send it. */
export function parsePolicyDocument(raw: string): ParsedDocument {
  if (raw.length > MAX_DOCUMENT_CHARS * 3) return { ok: false, message: `the document is larger than ${MAX_DOCUMENT_CHARS} characters` };
  let text = raw.trim();
  if (!text.startsWith('{')) {
    try {
      text = decodeURIComponent(text);
    } catch {
      return { ok: false, message: 'the document is neither JSON nor URL-encoded JSON' };
    }
  }
  if (text.length > MAX_DOCUMENT_CHARS) return { ok: false, message: `the document is larger than ${MAX_DOCUMENT_CHARS} characters` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, message: 'the document is not JSON' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, message: 'the document is not a JSON object' };
  const raws = (value as Record<string, unknown>).Statement;
  const list = Array.isArray(raws) ? raws : raws === undefined ? [] : [raws];
  if (list.length > MAX_STATEMENTS) {
    return {
      ok: false,
      message: `the document has ${list.length} statements; more than ${MAX_STATEMENTS} are not read (AWS allows far fewer)`,
    };
  }
  const statements: Statement[] = [];
  for (const [index, item] of list.entries()) {
    if (item === null || typeof item !== 'object' || Array.isArray(item))
      return { ok: false, message: `statement ${index} is not an object` };
    const record = item as Record<string, unknown>;
    const fields = {
      Action: strings(record.Action),
      NotAction: strings(record.NotAction),
      Resource: strings(record.Resource),
      NotResource: strings(record.NotResource),
    };
    for (const [name, parsed] of Object.entries(fields)) {
      if (record[name] !== undefined && parsed === undefined)
        return { ok: false, message: `statement ${index}: ${name} is not a string or a list of strings` };
    }
    statements.push({
      effect: typeof record.Effect === 'string' ? record.Effect : '',
      actions: fields.Action,
      notActions: fields.NotAction,
      resources: fields.Resource,
      notResources: fields.NotResource,
      hasCondition: record.Condition !== undefined && record.Condition !== null && Object.keys(record.Condition).length > 0,
    });
  }
  return { ok: true, statements };
}

/** An IAM wildcard pattern (`*`, `?`) against a name, case-insensitively as IAM compares actions. */
function globMatches(pattern: string, name: string): boolean {
  const source = pattern
    .split('')
    .map((char) => (char === '*' ? '.*' : char === '?' ? '.' : char.replace(/[.+^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 'i').test(name);
}

function allows(statement: Statement, action: string): boolean {
  if (statement.effect !== 'Allow') return false;
  if (statement.actions) return statement.actions.some((pattern) => globMatches(pattern, action));
  if (statement.notActions) return !statement.notActions.some((pattern) => globMatches(pattern, action));
  return false;
}

/** On every resource: `Resource: "*"`, or a NotResource (everything but some). */
function onAnyResource(statement: Statement): boolean {
  if (statement.resources) return statement.resources.includes('*');
  return statement.notResources !== undefined;
}

export interface PolicyVerdict {
  /** Statement indices allowing `*` on `*`. */
  admin: number[];
  /** Sensitive services whose every action is allowed on `*`, with the statements. */
  serviceWildcards: { service: string; statements: number[] }[];
  /** Escalation actions allowed, with the statements. */
  escalation: { action: string; statements: number[] }[];
}

export function judgePolicy(statements: readonly Statement[]): PolicyVerdict {
  const admin: number[] = [];
  const services = new Map<string, number[]>();
  const escalation = new Map<string, number[]>();
  const add = (map: Map<string, number[]>, key: string, index: number) => map.set(key, [...(map.get(key) ?? []), index]);
  statements.forEach((statement, index) => {
    if (statement.effect !== 'Allow') return;
    const anyResource = onAnyResource(statement);
    const literalAll = (statement.actions ?? []).some((action) => action === '*' || action === '*:*');
    if (literalAll && anyResource) admin.push(index);
    for (const service of SENSITIVE_SERVICES) {
      // Every action of the service: `<service>:*` itself (or a pattern covering it, `*` included).
      if (anyResource && (statement.actions ?? []).some((pattern) => globMatches(pattern, `${service}:*`) && pattern.endsWith('*'))) {
        add(services, service, index);
      }
    }
    if (allows(statement, 'iam:PassRole') && !statement.hasCondition) add(escalation, 'iam:PassRole', index);
    if (anyResource) for (const action of ESCALATION_ON_ANY) if (allows(statement, action)) add(escalation, action, index);
  });
  return {
    admin,
    serviceWildcards: [...services].map(([service, indices]) => ({ service, statements: indices })),
    escalation: [...escalation].map(([action, indices]) => ({ action, statements: indices })),
  };
}
