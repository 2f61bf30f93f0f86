import * as z from 'zod';
import type { RouteDefinition } from './routes.ts';

const ErrorBody = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    details: z.array(z.object({ field: z.string(), message: z.string() })),
    request_id: z.string(),
  }),
});

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') => z.toJSONSchema(schema, { io, unrepresentable: 'any' });

function operationObject(route: RouteDefinition) {
  const { success, errors } = route;
  const parameters = [
    ...(route.path.includes('{id}') ? [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }] : []),
    ...Object.entries(route.query?.unwrap().shape ?? {}).map(([name, schema]) => ({
      name,
      in: 'query',
      required: false,
      description: schema.description,
      schema: jsonSchema(schema, 'input'),
    })),
  ];
  const responses: Record<string, unknown> = {
    [success.status]: {
      description: success.description,
      ...(success.schema ? { content: { 'application/json': { schema: jsonSchema(success.schema, 'output') } } } : {}),
    },
  };
  if (route.redirect)
    responses[route.redirect.status] = {
      description: route.redirect.description,
      headers: { Location: { required: true, schema: { type: 'string', format: 'uri' } } },
    };
  for (const status of errors) responses[status] = { $ref: '#/components/responses/Error' };
  return {
    summary: route.summary,
    ...(route.authenticated ? {} : { security: [] }),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input') } } } }
      : {}),
    responses,
  };
}

/** The OpenAPI 3.1 document, generated from the route declarations (functions/api/routes.ts) and their zod schemas. */
export function buildOpenApiDocument(version: string, routes: readonly RouteDefinition[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationObject(route);
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
