import type { APIGatewayProxyEventV2WithLambdaAuthorizer, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { AuthorizerContext } from '../auth/authorize.ts';
import type { Identity } from '../domain/identity.ts';

export type ApiEvent = APIGatewayProxyEventV2WithLambdaAuthorizer<AuthorizerContext | Record<string, never>>;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** What a streaming server gets (the local one): an answer whose body may still be coming. */
export type StreamedApiResult = ApiResult & { stream?: AsyncIterable<string> };

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
  /** A body that is not JSON, sent as is with the content type in `headers`. */
  raw?: string;
  /**
   * A body made as it is sent (the CSV export): streamed where the server streams (npm start), else
   * buffered into one Lambda answer while it stays within MAX_BUFFERED_BODY_BYTES. Past that, the
   * answer is `overflow`'s, given every chunk (the CSV export stores them in S3 and answers 303 to
   * a presigned URL), or without one 413 `tooLarge`.
   */
  stream?: { chunks: AsyncIterable<string>; tooLarge: string; overflow?: (chunks: AsyncIterable<string>) => Promise<ApiResponse> };
  headers?: Record<string, string>;
  /** Set-Cookie values (API Gateway payload 2.0 `cookies`). */
  cookies?: string[];
}
