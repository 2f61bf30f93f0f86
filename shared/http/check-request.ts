import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import type { ApiEvent, ApiResult } from './api-types.ts';
import { stateOf } from './middlewares.ts';
import { parseBody, parseQuery } from './parse.ts';
import { pathId } from './path-id.ts';

/**
 * Checks a request against its route's declaration (shared/http/routes.ts), in this order: the
 * `{id}` (404 when malformed), the query, the body (400 validation_error). The handler gets the
 * parsed values and never parses again.
 */
export function checkRequest(): MiddlewareObj<ApiEvent, ApiResult, Error, Context> {
  return {
    name: 'checkRequest',
    before: function checkDeclaredRequest(request) {
      const state = stateOf(request.event);
      const { route } = state;
      const params = (request.event.pathParameters ?? {}) as Record<string, string>;
      const query = (request.event.queryStringParameters ?? {}) as Record<string, string>;
      state.checked = {
        id: route.id ? pathId(params, route.id.schema, route.id.noun) : (params.id ?? ''),
        query: route.query ? parseQuery(route.query, query) : query,
        body: route.body ? parseBody(route.body, state.body, route.readOnly) : state.body,
      };
    },
  };
}
