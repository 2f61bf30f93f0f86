import fc from 'fast-check';
import { SignJWT } from 'jose';
import { sessionKeyId } from '../../shared/auth/session-token.ts';
import { routes } from '../../functions/api/routes.ts';
import { MAX_BODY_BYTES } from '../../shared/http/middlewares.ts';
import { scheduleBody } from '../helpers/local-service.ts';

/**
 * Generated hostile requests (issue 11 item 9). Every generated request carries the status DESIGN
 * §3 says it must get, worked out from the validation order in docs/api.md: route (404) →
 * authentication (401) → role (403) → CSRF (403) → content type (415) → size (413) → JSON (400
 * invalid_json) → fields (400) → id (404). Each one is built so that it must be refused: none may
 * change anything, which the suite checks.
 */
export interface HostileRequest {
  family: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  expect: { status: number; code?: string; field?: string };
}

/** What the generators need to know about the running service. */
export interface Fixture {
  url: string;
  sessionKey: string;
  tokens: { admin: string; operator: string; viewer: string; otherAdmin: string };
  scheduleId: string;
  scanId: string;
  otherScheduleId: string;
  otherScanId: string;
  /** A pending artifact of tenant acme, its upload token, and a ready artifact whose token was used. */
  artifactId: string;
  otherArtifactId: string;
  uploadToken: string;
  usedUploadToken: string;
  /** A real next_cursor of each listing of tenant acme, and one of tenant other. */
  cursors: { schedules: string; scans: string; findings?: string; otherSchedules: string };
}

const JSON_TYPE = { 'content-type': 'application/json' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/**
 * A well-formed issue id no scan of the fixture produced (its scans run no engine, so they raise no
 * issue): the issue routes answer it as any unknown id, after the role and body checks.
 */
const UNSEEN_ISSUE = `iss_${'0'.repeat(32)}`;

/**
 * A well-formed notification rule id no test creates: the rule routes answer it as any unknown id,
 * after the role and body checks (a generated request never creates a rule).
 */
const UNSEEN_NOTIFICATION_RULE = `ntf_${'0'.repeat(26)}`;

/** A well-formed credential alias no test creates: answered as any unknown alias, after the role and body checks. */
const UNSEEN_CREDENTIAL = 'unseen-credential';

/**
 * The placeholder of each path id, by the noun of the route's id declaration; `fill` gives each
 * one a value. A route with an id of a new noun fails here until its placeholder is added.
 */
const PLACEHOLDERS: Record<string, string> = {
  schedule: '{sch}',
  scan: '{scan}',
  artifact: '{art}',
  issue: '{iss}',
  'notification rule': '{ntf}',
  credential: '{crd}',
};

function placeholderOf(noun: string): string {
  const placeholder = PLACEHOLDERS[noun];
  if (placeholder === undefined)
    throw new Error(`hostile-requests.ts has no placeholder for the path id of a ${noun}: add one to PLACEHOLDERS and fill`);
  return placeholder;
}

/**
 * Every authenticated route of the table (functions/api/routes.ts) with the least role DESIGN §3
 * gives it, its `{id}` replaced by the placeholder of its noun, and whether it takes a body: a
 * route added to the table is attacked here with no edit.
 */
const ROUTES = routes
  .filter((route) => route.authenticated)
  .map((route) => ({
    method: route.method,
    path: route.id ? route.path.replace('{id}', placeholderOf(route.id.noun)) : route.path,
    role: route.role,
    hasBody: route.body !== undefined,
  }));
const AUTHENTICATED = ROUTES;
const MUTATING = ROUTES.filter((route) => route.method !== 'GET' && route.path !== '/api/session');
const ID_ROUTES = ROUTES.filter((route) => route.path.includes('{'));
const BODY_ROUTES = [
  'POST /api/scans/schedules/',
  'POST /api/scans/',
  'PATCH /api/scans/schedules/{sch}/',
  'POST /api/artifacts/',
] as const;
/** The local-only admin endpoints (`x-local-admin-key`), outside /api. */
const ADMIN_ENDPOINTS = ['/_local/reconcile', '/_local/backfill'] as const;
/** The local stand-in for an S3 presigned PUT. */
export const UPLOAD_PATH = '/_local/artifacts/upload';
const LISTINGS = ['/api/scans/schedules/', '/api/scans/', '/api/findings/'] as const;
const PUBLIC_PATHS = ['/api/health', '/api/openapi.json', '/api/session', '/api/me'];

const fill = (path: string, fixture: Fixture) =>
  path
    .replace('{sch}', fixture.scheduleId)
    .replace('{scan}', fixture.scanId)
    .replace('{art}', fixture.artifactId)
    .replace('{iss}', UNSEEN_ISSUE)
    .replace('{ntf}', UNSEEN_NOTIFICATION_RULE)
    .replace('{crd}', UNSEEN_CREDENTIAL);

interface BodyRoute {
  method: string;
  path: string;
  create: boolean;
  manual: boolean;
  artifact: boolean;
}

function bodyRoute(fixture: Fixture, keys: readonly (typeof BODY_ROUTES)[number][] = BODY_ROUTES): fc.Arbitrary<BodyRoute> {
  return fc.constantFrom(...keys).map((key) => {
    const [method, path] = key.split(' ');
    return {
      method,
      path: fill(path, fixture),
      create: key === 'POST /api/scans/schedules/',
      manual: key === 'POST /api/scans/',
      artifact: key === 'POST /api/artifacts/',
    };
  });
}

/** The routes whose body carries a scan subject (target, scope). */
const SUBJECT_ROUTES = BODY_ROUTES.filter((key) => key !== 'POST /api/artifacts/');

const ARTIFACT_BODY = { purpose: 'rua', filename: 'report.xml', size: 1024, content_type: 'application/xml' };

/** A body the route would accept, to be made hostile by exactly one change. */
function validBody(route: { create: boolean; manual: boolean; artifact?: boolean }): Record<string, unknown> {
  if (route.artifact) return { ...ARTIFACT_BODY };
  if (route.manual) return { scan_type: 'email_security', target: 'example.com', scope: { reputation: false } };
  if (route.create) return scheduleBody({ description: 'generated', scope: { reputation: true } });
  return { name: 'patched', description: 'generated' };
}

/**
 * A body each route that takes one would accept, by route key: the families that attack a body's
 * form (JSON, depth, size, content type, encoding) start from it on every such route of the table,
 * and the others send it where they attack something else. A route with a body missing here fails.
 */
const VALID_BODIES: Record<string, () => Record<string, unknown>> = {
  'POST /api/scans/schedules/': () => validBody({ create: true, manual: false }),
  'PATCH /api/scans/schedules/{sch}/': () => validBody({ create: false, manual: false }),
  'POST /api/scans/': () => validBody({ create: false, manual: true }),
  'POST /api/artifacts/': () => validBody({ create: false, manual: false, artifact: true }),
  'PATCH /api/issues/{iss}/': () => ({ status: 'false_positive', reason: 'generated' }),
  'PUT /api/settings/sla': () => ({ critical: 3, high: 7, medium: 30, low: 90, info: null }),
  'POST /api/notifications/': () => ({ name: 'hook', kind: 'webhook', url: 'https://hooks.example.com/x', events: ['issue.opened'] }),
  'PATCH /api/notifications/{ntf}/': () => ({ name: 'patched', enabled: false }),
  'POST /api/credentials/': () => ({
    alias: 'generated',
    kind: 'git_token',
    secret: { token: 'ghp_generated0000000000000000000000000000' },
    allowed_hosts: ['git.example.com'],
  }),
  'PATCH /api/credentials/{crd}/': () => ({ description: 'patched' }),
};

function validBodyOf(route: { method: string; path: string }): Record<string, unknown> {
  const make = VALID_BODIES[`${route.method} ${route.path}`];
  if (make === undefined)
    throw new Error(`hostile-requests.ts has no valid body for ${route.method} ${route.path}: add one to VALID_BODIES`);
  return make();
}

/** Every route of the table that takes a JSON body. */
const FORM_ROUTES = ROUTES.filter((route) => route.hasBody).map((route) => ({ ...route, valid: validBodyOf(route) }));

/** Any route that takes a body, its path filled, with a body it would accept. */
function formRoute(fixture: Fixture) {
  return fc.constantFrom(...FORM_ROUTES).map((route) => ({ method: route.method, path: fill(route.path, fixture), valid: route.valid }));
}

/** A valid body for any route that takes one (for the families that attack something else). */
function bodyFor(route: { method: string; path: string; hasBody: boolean }): string | undefined {
  return route.hasBody ? JSON.stringify(validBodyOf(route)) : undefined;
}

const request = (
  family: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  expect: HostileRequest['expect'],
): HostileRequest => ({ family, method, path, headers, body, expect });

// ---------------------------------------------------------------------------------------------
// Bodies

/** Text that is not JSON: truncations of valid JSON, JavaScript-isms, and arbitrary strings. */
const notJson = fc.oneof(
  fc.constantFrom(
    '{',
    '{"name": ',
    '{"name":"a",}',
    "{'name':'a'}",
    '{name: 1}',
    'NaN',
    '{"a":NaN}',
    '{"a":Infinity}',
    '[1,]',
    '{"a":1}//',
    '/* */{}',
    '{"a":"\\x41"}',
    '{"a":01}',
    '{"a":.5}',
    '\u0000',
    'undefined',
    '{"a":"unterminated}',
    '{}}',
    '{"a"}',
    '\ufeff\ufeff{}',
  ),
  fc.string({ minLength: 1, maxLength: 200 }).filter((text) => {
    try {
      JSON.parse(text);
      return false;
    } catch {
      return text.trim() !== '';
    }
  }),
);

export function malformedJson(fixture: Fixture) {
  return fc.tuple(formRoute(fixture), notJson).map(([route, text]) =>
    request('malformed JSON', route.method, route.path, { ...bearer(fixture.tokens.admin), ...JSON_TYPE }, text, {
      status: 400,
      code: 'invalid_json',
    }),
  );
}

/** JSON nested past the 32-level bound, as arrays, objects or both, inside scope or at the top. */
export function deepJson(fixture: Fixture) {
  return fc
    .tuple(formRoute(fixture), fc.integer({ min: 33, max: 4000 }), fc.constantFrom('[', '{"a":', '{"__proto__":'), fc.boolean())
    .map(([route, depth, opener, inScope]) => {
      const closer = opener === '[' ? ']' : '}';
      const deep = `${opener.repeat(depth)}1${closer.repeat(depth)}`;
      const body = inScope ? JSON.stringify({ ...route.valid, scope: { x: 0 } }).replace('{"x":0}', `{"x":${deep}}`) : deep;
      return request('deep JSON', route.method, route.path, { ...bearer(fixture.tokens.admin), ...JSON_TYPE }, body, {
        status: 400,
        code: 'validation_error',
      });
    });
}

/** Bodies a few bytes either side of 64 KiB: over is 413, just under is read and refused on a field. */
export function bodySizes(fixture: Fixture) {
  return fc
    .tuple(
      formRoute(fixture),
      fc.integer({ min: -64, max: 64 }).filter((delta) => delta !== 0),
      fc.constantFrom('description', 'name', 'unknown_field'),
    )
    .map(([route, delta, field]) => {
      const base = JSON.stringify({ ...route.valid, [field]: '' });
      const body = base.replace(`"${field}":""`, `"${field}":"${'x'.repeat(MAX_BODY_BYTES + delta - base.length)}"`);
      return delta > 0
        ? request('body over 64 KiB', route.method, route.path, { ...bearer(fixture.tokens.admin), ...JSON_TYPE }, body, {
            status: 413,
            code: 'payload_too_large',
          })
        : request('body just under 64 KiB', route.method, route.path, { ...bearer(fixture.tokens.admin), ...JSON_TYPE }, body, {
            status: 400,
            code: 'validation_error',
          });
    });
}

const WRONG_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'text/json',
  'application/json-patch+json',
  'application/jsonx',
  'json',
  '*/*',
  'application/*',
  '',
];
const WRONG_CHARSETS = [
  'iso-8859-1',
  'latin1',
  'utf-16',
  'UTF-16LE',
  'windows-1252',
  'us-ascii',
  'utf-7',
  'utf-8x',
  '"iso-8859-1"',
  'shift_jis',
];

export function contentTypes(fixture: Fixture) {
  return fc
    .tuple(
      formRoute(fixture),
      fc.oneof(
        fc.constantFrom(...WRONG_TYPES),
        fc.constantFrom(...WRONG_CHARSETS).map((charset) => `application/json; charset=${charset}`),
      ),
    )
    .map(([route, type]) =>
      request(
        'content type or charset',
        route.method,
        route.path,
        { ...bearer(fixture.tokens.admin), 'content-type': type },
        JSON.stringify(route.valid),
        { status: 415, code: 'unsupported_media_type' },
      ),
    );
}

/** Bytes that are not UTF-8 in a body that says it is. */
export function invalidUtf8(fixture: Fixture) {
  return fc
    .tuple(
      formRoute(fixture),
      fc.constantFrom([0xff], [0xc3, 0x28], [0xe0, 0xa4], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf]),
    )
    .map(([route, bytes]) => {
      const [head, tail] = JSON.stringify({ ...route.valid, name: '@' }).split('@');
      return request(
        'invalid UTF-8',
        route.method,
        route.path,
        { ...bearer(fixture.tokens.admin), ...JSON_TYPE },
        Buffer.concat([Buffer.from(head), Buffer.from(bytes), Buffer.from(tail)]),
        { status: 400, code: 'invalid_json' },
      );
    });
}

/** Duplicate keys: JSON.parse keeps the last, which is the hostile one. */
export function duplicateKeys(fixture: Fixture) {
  const hostile: [string, string, string][] = [
    ['name', '"\\u202e"', 'name'],
    ['enabled', '"yes"', 'enabled'],
    ['scan_type', '"port_scan"', 'scan_type'],
    ['scope', '{"rua":["/etc/passwd"]}', 'scope.rua.0'],
    ['target', '"not a domain"', 'target'],
    ['cadence', '"hourly"', 'cadence'],
  ];
  const artifactHostile: [string, string, string][] = [
    ['purpose', '"pdf"', 'purpose'],
    ['filename', '"../../etc/passwd"', 'filename'],
    ['filename', '"invoice\\u202efdp.exe"', 'filename'],
    ['size', '0', 'size'],
    ['size', '1e12', 'size'],
    ['content_type', '"text/html"', 'content_type'],
  ];
  const pairs = bodyRoute(fixture).chain((route) =>
    fc.constantFrom(...(route.artifact ? artifactHostile : hostile)).map((pair) => [route, pair] as const),
  );
  return pairs.map(([route, [key, value, field]]) => {
    const valid = JSON.stringify(validBody(route));
    return request(
      'duplicate keys',
      route.method,
      route.path,
      { ...bearer(fixture.tokens.admin), ...JSON_TYPE },
      `${valid.slice(0, -1)},"${key}":${value}}`,
      { status: 400, code: 'validation_error', field },
    );
  });
}

/** `__proto__`, `constructor` and `prototype` keys at the top of the body or anywhere in scope. */
export function prototypeKeys(fixture: Fixture) {
  return fc
    .tuple(
      bodyRoute(fixture),
      fc.constantFrom('__proto__', 'constructor', 'prototype'),
      fc.integer({ min: 0, max: 4 }),
      fc.constantFrom('1', '{}', '{"polluted":true}', '[]', 'null', '"x"'),
    )
    .map(([route, key, depth, value]) => {
      const where = depth === 0 ? '' : `${'{"a":'.repeat(depth - 1)}`;
      const nested = depth === 0 ? null : `${where}{"${key}":${value}}${'}'.repeat(depth - 1)}`;
      const valid = validBody(route);
      const body =
        nested === null
          ? `{"${key}":${value},${JSON.stringify(valid).slice(1)}`
          : JSON.stringify({ ...valid, scope: 0 }).replace('"scope":0', `"scope":${nested}`);
      const field = depth === 0 ? key : ['scope', ...Array.from({ length: depth - 1 }, () => 'a'), key].join('.');
      return request('prototype keys', route.method, route.path, { ...bearer(fixture.tokens.admin), ...JSON_TYPE }, body, {
        status: 400,
        code: 'validation_error',
        field,
      });
    });
}

/** Per field, values of every JSON type the schema does not take. */
const FIELD_TYPES: Record<string, ('string' | 'number' | 'boolean' | 'object' | 'array' | 'null')[]> = {
  name: ['string'],
  description: ['string'],
  scan_type: ['string'],
  target: ['string'],
  targets: ['array'],
  scope: ['object'],
  cadence: ['string'],
  cron_expression: ['string', 'null'],
  timezone: ['string'],
  enabled: ['boolean'],
};
const ARTIFACT_FIELD_TYPES: Record<string, ('string' | 'number' | 'boolean' | 'object' | 'array' | 'null')[]> = {
  purpose: ['string'],
  filename: ['string'],
  size: ['number'],
  content_type: ['string'],
};
/** The body fields of a route and the JSON types each takes. */
const fieldTypesOf = (route: BodyRoute) =>
  route.artifact
    ? ARTIFACT_FIELD_TYPES
    : route.manual
      ? { scan_type: FIELD_TYPES.scan_type, target: FIELD_TYPES.target, targets: FIELD_TYPES.targets, scope: FIELD_TYPES.scope }
      : FIELD_TYPES;
const anyJson = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
  fc.array(fc.string(), { maxLength: 3 }),
  fc.dictionary(
    fc.string({ maxLength: 5 }).filter((k) => !['__proto__', 'constructor', 'prototype', ''].includes(k)),
    fc.string(),
    { maxKeys: 2 },
  ),
  fc.string({ maxLength: 20 }),
);
const typeOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'number' ? 'number' : typeof value;

export function wrongTypes(fixture: Fixture) {
  return bodyRoute(fixture)
    .chain((route) => fc.tuple(fc.constant(route), fc.constantFrom(...Object.keys(fieldTypesOf(route))), anyJson))
    .filter(([route, field, value]) => {
      return !(fieldTypesOf(route)[field] as string[]).includes(typeOf(value));
    })
    .map(([route, field, value]) =>
      request(
        'wrong types',
        route.method,
        route.path,
        { ...bearer(fixture.tokens.admin), ...JSON_TYPE },
        JSON.stringify({ ...validBody(route), [field]: value }),
        { status: 400, code: 'validation_error', field },
      ),
    );
}

/** Unknown and read-only fields. */
export function unknownFields(fixture: Fixture) {
  const readOnly = fc.constantFrom(
    'id',
    'tenant',
    'last_run_status',
    'trigger',
    'next_run_at',
    'created_at',
    'version',
    'PK',
    'status',
    'schedule_id',
    'sha256',
    'expires_at',
    'upload',
    'reason',
  );
  return fc
    .tuple(bodyRoute(fixture), fc.oneof(readOnly, fc.stringMatching(/^[a-z_]{1,12}$/)))
    .filter(([, key]) => !(key in FIELD_TYPES) && !(key in ARTIFACT_FIELD_TYPES) && !['constructor', 'prototype'].includes(key))
    .map(([route, field]) =>
      request(
        'unknown or read-only fields',
        route.method,
        route.path,
        { ...bearer(fixture.tokens.admin), ...JSON_TYPE },
        JSON.stringify({ ...validBody(route), [field]: 'x' }),
        { status: 400, code: 'validation_error', field },
      ),
    );
}

/** Strings no field may hold: lone surrogates, C0/C1 controls, bidi overrides; for names also invisible-only. */
const hostileText = fc.oneof(
  fc.constantFrom(
    '\ud800',
    '\udfff',
    'a\ud83d',
    '\ude00b',
    '\u0000',
    '\u0007',
    '\u001b[2J',
    '\u0085',
    '\u009b',
    '\u202e',
    '\u202a',
    '\u2066',
    '\u2069',
    '\u202d',
  ),
  fc
    .tuple(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('\u0000', '\u202e', '\ud800', '\u0008', '\u2067', '\u007f'),
      fc.string({ maxLength: 8 }),
    )
    .map(([a, bad, b]) => `${a}${bad}${b}`),
);
const invisibleOnly = fc
  .array(fc.constantFrom('\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', ' ', '\u3000', '\u180e'), {
    minLength: 1,
    maxLength: 12,
  })
  .map((parts) => parts.join(''));

export function unicodeEdges(fixture: Fixture) {
  return fc
    .tuple(
      bodyRoute(fixture),
      fc.constantFrom('name', 'description', 'target', 'scope', 'targets', 'timezone', 'cron_expression', 'filename', 'content_type'),
      hostileText,
      invisibleOnly,
      fc.boolean(),
    )
    .filter(
      ([route, field]) =>
        (route.artifact ? ['filename', 'content_type'].includes(field) : field !== 'filename' && field !== 'content_type') &&
        (!route.manual || ['target', 'scope', 'targets'].includes(field)),
    )
    .map(([route, field, text, invisible, useInvisible]) => {
      const value = (field === 'name' || field === 'filename') && useInvisible ? invisible : text;
      const body =
        field === 'scope'
          ? { ...validBody(route), scope: { dkim_selectors: [value] } }
          : field === 'targets'
            ? { ...validBody(route), targets: ['example.org', value] }
            : field === 'timezone' || field === 'cron_expression'
              ? {
                  ...validBody(route),
                  cadence: 'custom',
                  cron_expression: field === 'cron_expression' ? value : '0 3 * * *',
                  timezone: field === 'timezone' ? value : 'UTC',
                }
              : { ...validBody(route), [field]: value };
      const expectedField = field === 'scope' ? 'scope.dkim_selectors.0' : field === 'targets' ? 'targets.1' : field;
      return request(
        'unicode edge cases',
        route.method,
        route.path,
        { ...bearer(fixture.tokens.admin), ...JSON_TYPE },
        JSON.stringify(body),
        { status: 400, code: 'validation_error', field: expectedField },
      );
    });
}

/** Scope values the store cannot hold, and scope.rua / scope.header that are not artifact ids. */
export function scopeValues(fixture: Fixture) {
  const numbers = fc.constantFrom(
    '1e400',
    '-1e400',
    '9007199254740993',
    '-9007199254740993',
    '1e-200',
    '-2e-131',
    '1e126',
    '123456789012345678901234567890',
  );
  const options = fc.constantFrom(
    '/etc/passwd',
    '-h',
    '--config=/etc/passwd',
    '--help',
    '../../x',
    'art_',
    'art_01J000000000000000000000000',
    'ART_01J0000000000000000000000A',
    'art_01J0000000000000000000000A\n',
  );
  return fc
    .tuple(
      bodyRoute(fixture, SUBJECT_ROUTES),
      fc.oneof(
        numbers.map((n) => ({ kind: 'number' as const, text: n })),
        options.map((o) => ({ kind: 'option' as const, text: o })),
      ),
      fc.boolean(),
    )
    .map(([route, value, asHeader]) => {
      if (value.kind === 'number') {
        const body = JSON.stringify({
          ...validBody(route),
          scan_type: 'dast',
          target: 'https://app.example.com/',
          scope: { n: 0 },
        }).replace('{"n":0}', `{"n":${value.text}}`);
        const patched = route.create || route.manual ? body : body.replace(',"target":"https://app.example.com/"', '');
        return request('scope values', route.method, route.path, { ...bearer(fixture.tokens.admin), ...JSON_TYPE }, patched, {
          status: 400,
          code: 'validation_error',
          field: 'scope.n',
        });
      }
      const scope = asHeader ? { header: value.text } : { rua: [value.text] };
      return request(
        'scope values',
        route.method,
        route.path,
        { ...bearer(fixture.tokens.admin), ...JSON_TYPE },
        JSON.stringify({ ...validBody(route), scope }),
        { status: 400, code: 'validation_error', field: asHeader ? 'scope.header' : 'scope.rua.0' },
      );
    });
}

/** Targets that point inside the deployment. */
export function internalTargets(fixture: Fixture) {
  const targets = fc.oneof(
    fc
      .constantFrom(
        'http://169.254.169.254/latest/meta-data/',
        'http://[::1]/',
        'http://127.0.0.1:8080/',
        'http://2130706433/',
        'http://0x7f.0.0.1/',
        'http://[::ffff:127.0.0.1]/',
        'http://localhost.localhost/',
        'https://10.0.0.5/',
        'http://[fd00:ec2::254]/',
        'http://0.0.0.0/',
        'http://[2002:7f00:1::1]/',
        'http://[::169.254.169.254]/',
      )
      .map((t) => ['dast', t] as const),
    fc
      .constantFrom(
        '::1',
        '127.0.0.1',
        '10.0.0.0/0',
        '0.0.0.0/0',
        '10.0.0.0/8',
        '169.254.169.254',
        '::169.254.169.254',
        '64:ff9b::a9fe:a9fe',
        '2002:7f00:1::1',
        '192.168.1.1',
        '172.16.0.0/12',
        '::/0',
        'fe80::1',
        '100.64.0.1',
        '224.0.0.1',
        '8.0.0.0/8',
      )
      .map((t) => ['vapt', t] as const),
  );
  return fc.tuple(fc.constantFrom(...BODY_ROUTES.slice(0, 2)), targets, fc.boolean()).map(([key, [scanType, target], inList]) => {
    const [method, path] = key.split(' ');
    const body = key.startsWith('POST /api/scans/schedules')
      ? scheduleBody({
          scan_type: scanType,
          target: inList ? (scanType === 'dast' ? 'https://example.com/' : '93.184.215.7') : target,
          targets: inList ? [target] : [],
        })
      : {
          scan_type: scanType,
          target: inList ? (scanType === 'dast' ? 'https://example.com/' : '93.184.215.7') : target,
          targets: inList ? [target] : [],
        };
    return request('targets inside the deployment', method, path, { ...bearer(fixture.tokens.admin), ...JSON_TYPE }, JSON.stringify(body), {
      status: 400,
      code: 'validation_error',
      field: inList ? 'targets.0' : 'target',
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Paths, queries, methods

/** Ids that name nothing in this tenant: malformed, encoded, huge, other kinds, other tenants'. */
function oddId(fixture: Fixture) {
  return fc.oneof(
    fc.constantFrom(
      '%zz',
      '%E0%A4%A',
      '%',
      '%%',
      '%2e%2e',
      '%2E%2E',
      '..',
      '.',
      '%2F',
      'a%2Fb',
      '%00',
      'sch_%00',
      '%2e%2e%2f%2e%2e',
      '%C0%AE%C0%AE',
      '%u002e',
      '%252e%252e',
      '*',
      '$',
      '%20',
      '+',
      'null',
      'undefined',
      '__proto__',
      'constructor',
    ),
    fc.constantFrom(
      fixture.otherScheduleId,
      fixture.otherScanId,
      fixture.otherArtifactId,
      fixture.scheduleId.toLowerCase(),
      `${fixture.scheduleId}0`,
      fixture.scanId.replace('scan_', 'sch_'),
      fixture.artifactId.replace('art_', 'scan_'),
      fixture.scheduleId.replace('sch_', 'art_'),
    ),
    fc.integer({ min: 1, max: 10 }).map((kib) => 'a'.repeat(kib * 1024)),
    fc.string({ minLength: 1, maxLength: 40 }).map((text) => encodeURIComponent(text)),
    fc.stringMatching(/^[A-Za-z0-9_%.~-]{1,60}$/),
  );
}

export function oddPathIds(fixture: Fixture) {
  return fc
    .tuple(fc.constantFrom(...ID_ROUTES), oddId(fixture))
    .filter(([route, id]) => {
      // The tenant's own ids would name something real.
      return (
        !(route.path.includes('{sch}') && id === fixture.scheduleId) &&
        !(route.path.includes('{scan}') && id === fixture.scanId) &&
        !(route.path.includes('{art}') && id === fixture.artifactId)
      );
    })
    .map(([route, id]) => {
      const path = route.path.replace(/\{(sch|scan|art|iss|ntf)\}/, () => id);
      const body = route.method === 'PATCH' ? JSON.stringify({ name: 'renamed' }) : undefined;
      return request('odd path ids', route.method, path, { ...bearer(fixture.tokens.admin), ...(body ? JSON_TYPE : {}) }, body, {
        status: 404,
        code: 'not_found',
      });
    });
}

export function queryAbuse(fixture: Fixture) {
  const badLimit = fc.oneof(
    fc.constantFrom(
      '0',
      '-1',
      '201',
      '0x10',
      '1e2',
      '%205',
      '5.0',
      '+5',
      ' 5',
      '5 ',
      '',
      'NaN',
      'Infinity',
      '1_0',
      '٥',
      '５',
      '99999999999999999999999',
      '50&limit=50',
      '1&limit=2',
    ),
    fc.integer({ min: 201 }).map(String),
    fc.integer({ max: 0 }).map(String),
    fc
      .string({ minLength: 1, maxLength: 6 })
      .filter((text) => !/^\d{1,3}$/.test(text))
      .map(encodeURIComponent),
  );
  const forgedCursor = fc.oneof(
    fc.constantFrom(
      fixture.cursors.otherSchedules,
      `${fixture.cursors.schedules}x`,
      fixture.cursors.schedules.split('.')[0],
      `.${fixture.cursors.schedules.split('.')[1]}`,
      'e30',
      'eyJ2IjoxfQ',
      '%00',
      'null',
      '..',
    ),
    fc.base64String({ minLength: 4, maxLength: 200 }),
    fc.string({ minLength: 1, maxLength: 60 }),
    fc
      .tuple(fc.jsonValue(), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/))
      .map(([value, mac]) => `${Buffer.from(JSON.stringify(value) ?? 'null').toString('base64url')}.${mac}`),
  );
  return fc.oneof(
    fc
      .tuple(
        fc.constantFrom(...LISTINGS),
        badLimit.map((limit) => limit.replace(/[^\x21-\x7e]/gu, (char) => encodeURIComponent(char))),
      )
      .map(([path, limit]) =>
        request('query: limit', 'GET', `${path}?limit=${limit}`, bearer(fixture.tokens.viewer), undefined, {
          status: 400,
          code: 'validation_error',
          field: 'limit',
        }),
      ),
    fc.tuple(fc.constantFrom(...LISTINGS), forgedCursor).map(([path, cursor]) =>
      request('query: forged cursors', 'GET', `${path}?cursor=${encodeURIComponent(cursor)}`, bearer(fixture.tokens.viewer), undefined, {
        status: 400,
        code: 'validation_error',
        field: 'cursor',
      }),
    ),
    // A real cursor replayed on another listing, or with other filters.
    fc
      .constantFrom(
        `/api/scans/?cursor=${encodeURIComponent(fixture.cursors.schedules)}`,
        `/api/findings/?cursor=${encodeURIComponent(fixture.cursors.scans)}`,
        `/api/scans/schedules/?cursor=${encodeURIComponent(fixture.cursors.scans)}`,
        `/api/scans/schedules/?enabled=false&cursor=${encodeURIComponent(fixture.cursors.schedules)}`,
        `/api/scans/schedules/?scan_type=email_security&cursor=${encodeURIComponent(fixture.cursors.schedules)}`,
        `/api/scans/?status=queued&cursor=${encodeURIComponent(fixture.cursors.scans)}`,
        `/api/scans/schedules/?cursor=${encodeURIComponent(fixture.cursors.otherSchedules)}`,
      )
      .map((path) =>
        request('query: foreign cursors', 'GET', path, bearer(fixture.tokens.viewer), undefined, {
          status: 400,
          code: 'validation_error',
          field: 'cursor',
        }),
      ),
    fc
      .tuple(
        fc.constantFrom(...LISTINGS),
        fc.oneof(
          fc.constantFrom(
            'tenant=other',
            '__proto__=1',
            'constructor=1',
            'scan_type=port_scan',
            'scan_type=dast&scan_type=ssl',
            'enabled=yes',
            'status=done',
            'severity=urgent',
            'cursor=',
            'cursor=a&cursor=b',
          ),
          fc
            .stringMatching(/^[a-z_]{1,10}$/)
            .filter(
              (name) =>
                !['limit', 'cursor', 'scan_type', 'enabled', 'status', 'schedule_id', 'scan_id', 'rule_id', 'severity', 'target'].includes(
                  name,
                ),
            )
            .map((name) => `${name}=1`),
        ),
      )
      .map(([path, query]) =>
        request('query: unknown and invalid filters', 'GET', `${path}?${query}`, bearer(fixture.tokens.viewer), undefined, {
          status: 400,
          code: 'validation_error',
        }),
      ),
  );
}

/** Methods no route has (PUT, HEAD, OPTIONS, TRACE) and known methods on the wrong path. */
export function methodConfusion(fixture: Fixture) {
  const paths = [
    ...new Set([
      ...ROUTES.map((route) => fill(route.path, fixture)),
      ...PUBLIC_PATHS,
      '/api',
      '/api/',
      '/api/scans/schedules',
      '/api/unknown/',
      ...ADMIN_ENDPOINTS,
      '/_local/',
      '/_local/unknown',
      '/api//scans/',
      '/API/scans/',
      '/api/scans/schedules/../',
      '/api/scans/./',
      '/api/artifacts/../scans/',
    ]),
  ];
  const known = new Set(ROUTES.map((route) => `${route.method} ${fill(route.path, fixture)}`));
  return fc
    .tuple(fc.constantFrom('PUT', 'HEAD', 'OPTIONS', 'TRACE', 'PATCH', 'DELETE', 'POST', 'GET'), fc.constantFrom(...paths))
    .filter(([method, path]) => {
      const normal = path.replace(/\/$/, '');
      const isKnown =
        [...known].some((key) => key.replace(/\/$/, '') === `${method} ${normal}`) ||
        ['GET /api/health', 'GET /api/openapi.json', 'DELETE /api/session'].includes(`${method} ${normal}`);
      return !isKnown && !(method === 'POST' && (ADMIN_ENDPOINTS as readonly string[]).includes(path));
    })
    .map(([method, path]) =>
      request('method confusion', method, path, bearer(fixture.tokens.admin), undefined, { status: 404, code: 'not_found' }),
    );
}

// ---------------------------------------------------------------------------------------------
// Credentials

const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

/**
 * Tokens that must never authenticate: literals (alg none, unsigned, garbage) and markers that
 * resolveToken signs (odd claims, expired, not yet valid, wrong key, HS512, a kid header).
 */
function badTokens(fixture: Fixture): fc.Arbitrary<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { sub: 'mallory', tenant: 'acme', role: 'admin', iat: now, exp: now + 3600 };
  const oddClaims = fc.oneof(
    fc.record({ tenant: fc.constantFrom('ACME', '../acme', 'acme/other', '', ' acme', 'a'.repeat(64), 'acme\u0000', '*', 'acme#T') }),
    fc.record({ tenant: fc.oneof(fc.integer(), fc.constant(null), fc.constant(['acme']), fc.constant({ $ne: '' })) }),
    fc.record({ role: fc.constantFrom('root', 'ADMIN', 'Admin', 'superuser', '', 'admin ', 'viewer,admin') }),
    fc.record({ role: fc.oneof(fc.constant(['admin']), fc.integer(), fc.constant(null), fc.constant(true)) }),
    fc.record({ sub: fc.oneof(fc.constant(''), fc.integer(), fc.constant('x'.repeat(300))) }),
    fc.record({ exp: fc.oneof(fc.constant(now - 3600), fc.constant(now - 31), fc.constant('never'), fc.constant(null)) }),
    fc.record({ nbf: fc.constant(now + 3600) }),
  );
  void fixture;
  return fc.oneof(
    fc.constantFrom(
      'null',
      'undefined',
      'a.b.c',
      '...',
      'eyJ',
      `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`,
      `${b64({ alg: 'none' })}.${b64(claims)}`,
      `${b64({ alg: 'HS256' })}.${b64(claims)}.${'A'.repeat(43)}`,
      `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ ...claims, tenant: 'other' })}.${'_'.repeat(43)}`,
    ),
    fc.stringMatching(/^[\x21-\x2b\x2d-\x3a\x3c-\x7e]{1,80}$/),
    oddClaims.map((odd) => `pending:${JSON.stringify({ ...claims, ...odd })}`),
    fc.constantFrom(`wrongkey:${JSON.stringify(claims)}`, `hs512:${JSON.stringify(claims)}`, `kid:${JSON.stringify(claims)}`),
  );
}

/** Turns the markers badTokens emits into real signed tokens. */
export async function resolveToken(token: string, sessionKey: string): Promise<string> {
  const [kind, ...rest] = token.split(':');
  if (!['pending', 'wrongkey', 'hs512', 'kid'].includes(kind) || rest.length === 0) return token;
  const payload = JSON.parse(rest.join(':')) as Record<string, unknown>;
  const key = new TextEncoder().encode(kind === 'wrongkey' ? 'another-key-that-is-at-least-32-characters-long' : sessionKey);
  // Every other forged token names the service's key (kid), so each one reaches the check it attacks.
  const kid = sessionKeyId(sessionKey);
  const header =
    kind === 'hs512'
      ? { alg: 'HS512', typ: 'JWT', kid }
      : kind === 'kid'
        ? { alg: 'HS256', kid: '../../../../dev/null' }
        : { alg: 'HS256', typ: 'JWT', kid };
  const signed = await new SignJWT(payload).setProtectedHeader(header).sign(key);
  // A kid cannot select another key: the token is signed with the real key but claims nothing bad,
  // so make it bad the only way that matters here, by cutting its signature.
  return kind === 'kid' ? signed.slice(0, -2) : signed;
}

export function jwtAttacks(fixture: Fixture) {
  return fc
    .tuple(fc.constantFrom(...AUTHENTICATED), badTokens(fixture), fc.constantFrom('bearer', 'cookie', 'both'))
    .map(([route, token, via]) => {
      const headers: Record<string, string> = { origin: fixture.url };
      if (via !== 'cookie') headers.authorization = `Bearer ${token}`;
      if (via !== 'bearer') headers.cookie = `session=${token}`;
      const body = bodyFor(route);
      return request('JWT attacks', route.method, fill(route.path, fixture), { ...headers, ...(body ? JSON_TYPE : {}) }, body, {
        status: 401,
        code: 'unauthenticated',
      });
    });
}

/** A cookie and a Bearer token for different tenants (or different roles) on any authenticated route. */
export function credentialMismatch(fixture: Fixture) {
  const pairs = [
    [fixture.tokens.admin, fixture.tokens.otherAdmin],
    [fixture.tokens.otherAdmin, fixture.tokens.admin],
    [fixture.tokens.viewer, fixture.tokens.admin],
    [fixture.tokens.admin, fixture.tokens.viewer],
  ] as const;
  return fc
    .tuple(fc.constantFrom(...AUTHENTICATED.filter((route) => route.path !== '/api/session')), fc.constantFrom(...pairs))
    .map(([route, [cookie, token]]) => {
      const body = bodyFor(route);
      return request(
        'cookie and Bearer disagree',
        route.method,
        fill(route.path, fixture),
        { authorization: `Bearer ${token}`, cookie: `session=${cookie}`, origin: fixture.url, ...(body ? JSON_TYPE : {}) },
        body,
        { status: 401, code: 'unauthenticated' },
      );
    });
}

/** Cookie-authenticated mutations from a foreign origin, or with neither Origin nor Referer. */
export function csrf(fixture: Fixture) {
  const origins = fc.oneof(
    fc.constantFrom<Record<string, string>>(
      {},
      { origin: 'null' },
      { origin: 'https://evil.example' },
      { origin: `${fixture.url}.evil.example` },
      { origin: fixture.url.replace('127.0.0.1', '127.0.0.2') },
      { origin: fixture.url.replace('http:', 'https:') },
      { referer: 'https://evil.example/page' },
      { referer: 'not a url' },
      { origin: '' },
      { origin: `${fixture.url}/` },
    ),
    fc.webUrl().map((url) => ({ origin: new URL(url).origin })),
  );
  return fc
    .tuple(fc.constantFrom(...MUTATING), origins, fc.constantFrom(fixture.tokens.admin, fixture.tokens.operator))
    .map(([route, origin, token]) => {
      const body = bodyFor(route);
      return request(
        'CSRF',
        route.method,
        fill(route.path, fixture),
        { cookie: `session=${token}`, ...origin, ...(body ? JSON_TYPE : {}) },
        body,
        { status: 403, code: 'forbidden' },
      );
    });
}

/** Roles below the route's: viewers mutate, operators delete. */
export function roleAbuse(fixture: Fixture) {
  return fc
    .tuple(fc.constantFrom(...MUTATING), fc.constantFrom<'viewer' | 'operator'>('viewer', 'operator'))
    .filter(([route, role]) => route.role === 'admin' || role === 'viewer')
    .map(([route, role]) => {
      const body = bodyFor(route);
      return request(
        'roles',
        route.method,
        fill(route.path, fixture),
        { ...bearer(fixture.tokens[role]), ...(body ? JSON_TYPE : {}) },
        body,
        { status: 403, code: 'forbidden' },
      );
    });
}

/** Signing in takes only a Bearer token: a cookie, however valid, does not sign in (it is what signing in replaces). */
export function sessionEndpoints(fixture: Fixture) {
  return fc
    .tuple(
      fc.constantFrom(fixture.tokens.admin, fixture.tokens.viewer, fixture.tokens.otherAdmin),
      fc.constantFrom<Record<string, string>>(
        {},
        { origin: fixture.url },
        { authorization: 'Bearer' },
        { authorization: 'Basic YWRtaW46YWRtaW4=' },
        { authorization: '' },
      ),
    )
    .map(([token, extra]) =>
      request('session endpoints', 'POST', '/api/session', { cookie: `session=${token}`, ...extra }, undefined, {
        status: 401,
        code: 'unauthenticated',
      }),
    );
}

/**
 * A sign-in link's code is spent by an unauthenticated POST: a code nobody issued (a session
 * token among them: the link is not one) is a 401, a malformed one a 400 on `code`; never a cookie.
 */
export function signInCodes(fixture: Fixture) {
  const unknown = fc.oneof(
    fc.stringMatching(/^[A-Za-z0-9_-]{16,128}$/),
    fc.constantFrom(fixture.tokens.admin.replaceAll('.', '_').slice(0, 128), 'A'.repeat(43)),
  );
  const malformed = fc.oneof(
    fc.constantFrom('', 'short', 'a.b.c', fixture.tokens.admin, `${'A'.repeat(43)}=`, 'A'.repeat(129)),
    fc.string({ maxLength: 40 }).filter((text) => !/^[A-Za-z0-9_-]{16,128}$/.test(text)),
  );
  return fc.oneof(
    unknown.map((code) =>
      request('sign-in codes', 'POST', '/api/session/code', JSON_TYPE, JSON.stringify({ code }), { status: 401, code: 'unauthenticated' }),
    ),
    malformed.map((code) =>
      request('sign-in codes', 'POST', '/api/session/code', JSON_TYPE, JSON.stringify({ code }), {
        status: 400,
        code: 'validation_error',
        field: 'code',
      }),
    ),
  );
}

/**
 * The local admin endpoints (what `npm run reconcile` and `npm run backfill` call): without the
 * admin key a 401, with it a body that is not JSON (415, 400) or not the endpoint's fields (400).
 * Never a valid request: each of them would run a reconcile or a backfill.
 */
export function localAdmin(fixture: Fixture) {
  const key = { 'x-local-admin-key': fixture.sessionKey };
  const wrongKeys = fc.constantFrom<Record<string, string>>(
    {},
    { 'x-local-admin-key': '' },
    { 'x-local-admin-key': 'guess' },
    { 'x-local-admin-key': `${fixture.sessionKey}x` },
    { 'x-local-admin-key': fixture.sessionKey.slice(0, -1) },
    { authorization: `Bearer ${fixture.tokens.admin}` },
    { cookie: `session=${fixture.tokens.admin}` },
  );
  const badFields: Record<(typeof ADMIN_ENDPOINTS)[number], [string, string][]> = {
    '/_local/reconcile': [
      ['{"dry_run":"yes"}', 'dry_run'],
      ['{"dry_run":1}', 'dry_run'],
      ['{"tenant":"../x"}', 'tenant'],
      ['{"tenant":"ACME"}', 'tenant'],
      ['{"force":true}', 'force'],
      ['[]', ''],
      ['"x"', ''],
      ['{"__proto__":{"dry_run":false}}', '__proto__'],
      ['{"constructor":1}', 'constructor'],
      ['{"dry_run":true,"n":1e400}', 'n'],
    ],
    '/_local/backfill': [
      ['{}', 'database_url'],
      ['{"dry_run":true}', 'database_url'],
      ['{"database_url":5}', 'database_url'],
      ['{"database_url":""}', 'database_url'],
      ['{"database_url":"postgres://x","rollback":"yes"}', 'rollback'],
      ['{"database_url":"postgres://x","tenant":"../x"}', 'tenant'],
      ['{"database_url":"postgres://x","extra":1}', 'extra'],
      ['{"__proto__":{},"database_url":"postgres://x"}', '__proto__'],
      ['null', ''],
      ['[1]', ''],
    ],
  };
  return fc.constantFrom(...ADMIN_ENDPOINTS).chain((path) =>
    fc.oneof(
      fc.tuple(wrongKeys, fc.constantFrom('{"dry_run":true}', '{}', '', '{')).map(([headers, body]) =>
        request('local admin endpoints', 'POST', path, { ...headers, ...JSON_TYPE }, body || undefined, {
          status: 401,
          code: 'unauthenticated',
        }),
      ),
      fc.constantFrom('text/plain', 'application/x-www-form-urlencoded', '', 'application/jsonx').map((type) =>
        request('local admin endpoints', 'POST', path, { ...key, 'content-type': type }, '{"dry_run":true}', {
          status: 415,
          code: 'unsupported_media_type',
        }),
      ),
      notJson.map((text) =>
        request('local admin endpoints', 'POST', path, { ...key, ...JSON_TYPE }, text, { status: 400, code: 'invalid_json' }),
      ),
      fc.constant(
        request('local admin endpoints', 'POST', path, { ...key, ...JSON_TYPE }, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]), {
          status: 400,
          code: 'invalid_json',
        }),
      ),
      fc
        .constantFrom(...badFields[path])
        .map(([body, field]) =>
          request('local admin endpoints', 'POST', path, { ...key, ...JSON_TYPE }, body, { status: 400, code: 'validation_error', field }),
        ),
      fc.integer({ min: 33, max: 3000 }).map((depth) =>
        request('local admin endpoints', 'POST', path, { ...key, ...JSON_TYPE }, `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`, {
          status: 400,
          code: 'validation_error',
        }),
      ),
    ),
  );
}

/**
 * The local stand-in for an S3 presigned PUT: forged, edited and used tokens, a request that
 * differs from what the token binds (type, length), other methods (405), and near-miss paths
 * (404: the path is matched as sent). Never the one PUT the token allows.
 */
export function uploads(fixture: Fixture) {
  const real = fixture.uploadToken;
  const [payload = '', mac = ''] = real.split('.');
  const forged = fc.oneof(
    fc.constantFrom(
      '',
      'x',
      '.',
      `${payload}.`,
      `.${mac}`,
      `${payload}x.${mac}`,
      `${payload}.${mac.slice(0, -1)}`,
      `${payload}.${mac}x`,
      `${Buffer.from('{"tenant":"acme"}').toString('base64url')}.${mac}`,
      real.toUpperCase(),
      '%00',
      fixture.tokens.admin,
    ),
    fc.base64String({ minLength: 1, maxLength: 120 }),
    fc.string({ minLength: 1, maxLength: 40 }),
  );
  const put = (token: string, headers: Record<string, string>, body: Buffer) =>
    request('artifact uploads', 'PUT', `${UPLOAD_PATH}?token=${encodeURIComponent(token)}`, headers, body, {
      status: 403,
      code: 'signature_does_not_match',
    });
  return fc.oneof(
    forged.map((token) => put(token, { 'content-type': 'application/xml' }, Buffer.from('<feedback/>'))),
    // The real token of the pending artifact (1,024 bytes of application/xml), with what it does not bind.
    fc
      .constantFrom('text/xml', 'application/zip', 'application/xml; charset=utf-8', 'text/html', '')
      .map((type) => put(real, { 'content-type': type }, Buffer.alloc(1024, 0x20))),
    fc
      .integer({ min: 0, max: 4096 })
      .filter((size) => size !== 1024)
      .map((size) => put(real, { 'content-type': 'application/xml' }, Buffer.alloc(size, 0x20))),
    fc.constant(
      request(
        'artifact uploads',
        'PUT',
        `${UPLOAD_PATH}?token=${encodeURIComponent(fixture.usedUploadToken)}`,
        { 'content-type': 'application/xml' },
        Buffer.alloc(1024, 0x20),
        { status: 403, code: 'upload_used' },
      ),
    ),
    fc.tuple(fc.constantFrom('GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'), fc.constantFrom(real, 'x')).map(([method, token]) =>
      request('artifact uploads', method, `${UPLOAD_PATH}?token=${encodeURIComponent(token)}`, {}, undefined, {
        status: 405,
        code: 'method_not_allowed',
      }),
    ),
    fc
      .constantFrom(
        `${UPLOAD_PATH}/`,
        '/_local/artifacts/%75pload',
        '/_local/artifacts/upload%2F',
        '/_local/x/../artifacts/upload',
        '/_local/artifacts/./upload',
        '/_local//artifacts/upload',
        '/_LOCAL/artifacts/upload',
        '/_local/artifacts/upload%00',
      )
      .map((path) =>
        request(
          'artifact uploads',
          'PUT',
          `${path}?token=${encodeURIComponent(real)}`,
          { 'content-type': 'application/xml' },
          Buffer.alloc(1024, 0x20),
          { status: 404, code: 'not_found' },
        ),
      ),
  );
}

/**
 * The public routes (health, the OpenAPI document, signing out) take no input that matters: odd
 * queries, credentials and cookies change nothing and get the route's usual answer.
 */
export function publicRoutes(fixture: Fixture) {
  const queries = fc.oneof(
    fc.constantFrom(
      '',
      '?__proto__=1',
      '?limit=0x10&limit=-1',
      '?x=%zz',
      '?cursor=%E0%A4%A',
      `?${'a'.repeat(4096)}=1`,
      '?constructor[prototype][x]=1',
    ),
    fc.string({ maxLength: 40 }).map((text) => `?${encodeURIComponent(text)}`),
  );
  const credentials = fc.constantFrom<Record<string, string>>(
    {},
    { authorization: 'Bearer x.y.z' },
    { cookie: 'session=%E0%A4%A' },
    { cookie: `session=${fixture.tokens.admin}; session=${fixture.tokens.otherAdmin}` },
    { authorization: `Bearer ${fixture.tokens.admin}`, cookie: `session=${fixture.tokens.otherAdmin}` },
    { origin: 'https://evil.example' },
  );
  const routes = fc.constantFrom<[string, string, number]>(
    ['GET', '/api/health', 200],
    ['GET', '/api/openapi.json', 200],
    ['DELETE', '/api/session', 204],
  );
  return fc
    .tuple(routes, queries, credentials)
    .map(([[method, path, status], query, headers]) => request('public routes', method, `${path}${query}`, headers, undefined, { status }));
}

/**
 * One request per authenticated route, whatever the seed: a forged token on each, refused 401. The
 * generated families pick routes at random, and with 40-odd routes a seed could leave one out
 * (`GET /api/me` was missed in one run); this sweep makes "every route was attacked" hold always.
 */
export function everyRoute(fixture: Fixture): HostileRequest[] {
  return AUTHENTICATED.map((route) => {
    const body = bodyFor(route);
    return request(
      'every route, forged token',
      route.method,
      fill(route.path, fixture),
      { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', origin: fixture.url, ...(body ? JSON_TYPE : {}) },
      body,
      { status: 401, code: 'unauthenticated' },
    );
  });
}

/** Every family, weighted so that each gets a fair share of a run. */
export function hostileRequests(fixture: Fixture): fc.Arbitrary<HostileRequest> {
  return fc.oneof(
    malformedJson(fixture),
    deepJson(fixture),
    bodySizes(fixture),
    contentTypes(fixture),
    invalidUtf8(fixture),
    duplicateKeys(fixture),
    prototypeKeys(fixture),
    wrongTypes(fixture),
    unknownFields(fixture),
    unicodeEdges(fixture),
    scopeValues(fixture),
    internalTargets(fixture),
    oddPathIds(fixture),
    { arbitrary: queryAbuse(fixture), weight: 4 },
    methodConfusion(fixture),
    jwtAttacks(fixture),
    credentialMismatch(fixture),
    csrf(fixture),
    roleAbuse(fixture),
    sessionEndpoints(fixture),
    signInCodes(fixture),
    publicRoutes(fixture),
    { arbitrary: localAdmin(fixture), weight: 2 },
    { arbitrary: uploads(fixture), weight: 2 },
  );
}
