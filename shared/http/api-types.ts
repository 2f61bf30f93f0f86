import type { APIGatewayProxyEventV2WithLambdaAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { AuthorizerContext } from '../auth/authorize.ts';
import type { Identity } from '../domain/identity.ts';

export type ApiEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<AuthorizerContext | Record<string, never>>;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** What an operation receives once the middlewares have done their part. */
export interface ApiRequest {
  identity: Identity;
  /** How the caller authenticated and until when; absent on public routes. */
  session?: { via: 'cookie' | 'bearer'; expires_at: string };
  /** Request headers, lower-case names (the session routes read the Bearer token). */
  headers: Record<string, string | undefined>;
  params: Record<string, string>;
  query: Record<string, string>;
  body: unknown;
  requestId: string;
  /**
   * Authenticate this tenant's listing cursors (shared/http/page-cursor.ts): one per accepted
   * session key, the current one first; empty on public routes.
   */
  cursorKeys: string[];
}

export interface PublicRequest {
  query: Record<string, string>;
  requestId: string;
}

export interface ApiResponse {
  status: number;
  body?: unknown;
  /** A body that is not JSON (the CSV export), sent as is with the content type in `headers`. */
  raw?: string;
  headers?: Record<string, string>;
  /** Set-Cookie values (API Gateway payload 2.0 `cookies`). */
  cookies?: string[];
}
