import * as z from 'zod';
import { ScanTypeList } from '../domain/scan-type-list.ts';
import { Artifact, CreateArtifactRequest, CreatedArtifact } from '../domain/artifact.ts';
import { FindingList, FindingListQuery } from '../domain/finding.ts';
import { ManualScanRequest, ScanJob, ScanList, ScanListQuery } from '../domain/scan-job.ts';
import { Schedule, ScheduleCreateRequest, ScheduleList, ScheduleListQuery, SchedulePatchRequest } from '../domain/schedule.ts';
import { routes, type RouteDefinition } from './routes.ts';
import { Me } from '../domain/identity.ts';

const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })),
    request_id: z.string(),
  }),
});
const Health = z.object({ status: z.literal('ok'), version: z.string() });

interface OperationDoc {
  summary: string;
  request?: z.ZodType;
  /** A list query (shared/domain, built at first use): each field is a query parameter, described by its `.describe()`. */
  query?: z.ZodLazy<z.ZodObject<Record<string, z.ZodType>>>;
  success: { status: number; schema?: z.ZodType; description: string };
  errors: number[];
}

const docs: Record<string, OperationDoc> = {
  'POST /api/scans/schedules/{id}/run/': {
    summary: 'Run now: a ScanJob is created and queued; enabled is unchanged',
    success: { status: 202, schema: z.object({ scan: ScanJob, schedule: Schedule }), description: 'the queued scan and the schedule' },
    errors: [401, 403, 404, 503],
  },
  'POST /api/scans/': {
    summary: 'Queue a manual scan',
    request: ManualScanRequest,
    success: { status: 202, schema: ScanJob, description: 'the queued scan; Location names it' },
    errors: [400, 401, 403, 413, 415, 503],
  },
  'GET /api/scans/': {
    summary: 'List scans, newest first',
    query: ScanListQuery,
    success: { status: 200, schema: ScanList, description: 'a page of scans' },
    errors: [400, 401, 403],
  },
  'GET /api/scans/{id}/': {
    summary: 'Get a scan',
    success: { status: 200, schema: ScanJob, description: 'the scan' },
    errors: [401, 403, 404],
  },
  'POST /api/artifacts/': {
    summary: 'Announce a file (DMARC report or .eml) and get where to PUT it',
    request: CreateArtifactRequest,
    success: {
      status: 201,
      schema: CreatedArtifact,
      description: 'the pending artifact with its upload instructions (valid 15 minutes); Location names it',
    },
    errors: [400, 401, 403, 413, 415],
  },
  'GET /api/artifacts/{id}/': {
    summary: 'Get an artifact: pending until its bytes arrived and passed the checks, then ready or rejected with a reason',
    success: { status: 200, schema: Artifact, description: 'the artifact' },
    errors: [401, 403, 404],
  },
  'GET /api/findings/': {
    summary: 'List findings, newest first',
    query: FindingListQuery,
    success: { status: 200, schema: FindingList, description: 'a page of findings' },
    errors: [400, 401, 403],
  },
  'GET /api/scans/schedules/': {
    summary: 'List schedules, newest first',
    query: ScheduleListQuery,
    success: { status: 200, schema: ScheduleList, description: 'a page of schedules' },
    errors: [400, 401, 403],
  },
  'POST /api/scans/schedules/': {
    summary: 'Create a schedule (and its trigger when enabled)',
    request: ScheduleCreateRequest,
    success: { status: 201, schema: Schedule, description: 'the schedule; Location names it' },
    errors: [400, 401, 403, 409, 413, 415, 503],
  },
  'GET /api/scans/schedules/{id}/': {
    summary: 'Get a schedule',
    success: { status: 200, schema: Schedule, description: 'the schedule' },
    errors: [401, 403, 404],
  },
  'PATCH /api/scans/schedules/{id}/': {
    summary: 'Change any subset of the writable fields; the trigger follows',
    request: SchedulePatchRequest,
    success: { status: 200, schema: Schedule, description: 'the schedule' },
    errors: [400, 401, 403, 404, 409, 413, 415, 503],
  },
  'DELETE /api/scans/schedules/{id}/': {
    summary: 'Delete a schedule and its trigger; findings stay',
    success: { status: 204, description: 'deleted' },
    errors: [401, 403, 404, 409, 503],
  },
  'POST /api/scans/schedules/{id}/toggle/': {
    summary: 'Flip enabled: remove or provision the trigger',
    success: { status: 200, schema: Schedule, description: 'the schedule' },
    errors: [401, 403, 404, 409, 503],
  },
  'GET /api/scan-types/': {
    summary: 'Scan types, target hints and runner availability',
    success: { status: 200, schema: ScanTypeList, description: 'the scan types' },
    errors: [401],
  },
  'POST /api/session': {
    summary: 'Sign in: exchange the Bearer token for the HttpOnly session cookie (Set-Cookie)',
    success: { status: 204, description: 'signed in; the cookie expires with the token' },
    // No body is needed, but one that is sent goes through the same checks as on every route.
    errors: [400, 401, 413, 415],
  },
  'DELETE /api/session': {
    summary: 'Sign out: clear the session cookie',
    success: { status: 204, description: 'signed out' },
    errors: [400, 413, 415],
  },
  'GET /api/me': { summary: 'Who the session is', success: { status: 200, schema: Me, description: 'the session' }, errors: [401] },
  'GET /api/health': { summary: 'Liveness and version', success: { status: 200, schema: Health, description: 'healthy' }, errors: [] },
  'GET /api/openapi.json': { summary: 'This document', success: { status: 200, description: 'OpenAPI 3.1' }, errors: [] },
};

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { io, unrepresentable: 'any' });

function operationObject(route: RouteDefinition, doc: OperationDoc) {
  const parameters = [
    ...(route.path.includes('{id}') ? [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] : []),
    ...Object.entries(doc.query?.unwrap().shape ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      description: schema.description,
      schema: jsonSchema(schema, 'input'),
    })),
  ];
  const responses: Record<string, unknown> = {
    [doc.success.status]: {
      description: doc.success.description,
      ...(doc.success.schema ? { content: { 'application/json': { schema: jsonSchema(doc.success.schema, 'output') } } } : {}),
    },
  };
  for (const status of doc.errors) responses[status] = { $ref: '#/components/responses/Error' };
  return {
    summary: doc.summary,
    ...(route.authenticated ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(doc.request
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(doc.request, 'input') } } } }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, generated from the route table and the zod schemas. */
export function buildOpenApiDocument(version: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const doc = docs[`${route.method} ${route.path}`];
    if (!doc) throw new Error(`no OpenAPI entry for ${route.method} ${route.path}`);
    (paths[route.path] ??= {})[route.method.toLowerCase()] = operationObject(route, doc);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Scan Service API', version },
    servers: [{ url: '/' }],
    security: [{ sessionCookie: [] }, { bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        sessionCookie: { type: 'apiKey', in: 'cookie', name: 'session' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      responses: {
        Error: { description: 'an error (DESIGN §3)', content: { 'application/json': { schema: jsonSchema(ErrorBody, 'output') } } },
      },
    },
  };
}
