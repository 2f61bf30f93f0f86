/**
 * The site's not-found shape (DESIGN §17): before any exposure probe, two random paths are
 * requested; a probe then counts only on a 2xx whose body carries the probed file's signature AND
 * differs from what the site answers for a path that does not exist. A site that answers 200 with
 * one page to everything (a soft 404, an SPA's catch-all) thus cannot fake an exposure.
 */
import type { WebResponse } from './http-client.ts';
import { isSuccess } from './page.ts';

export interface NotFoundShape {
  status: number;
  /** The body with the requested path removed (many not-found pages echo it). */
  normalized: string;
}

export function normalizeBody(body: Buffer, requestedPath: string): string {
  const text = body.toString('latin1');
  const name = requestedPath.split('/').pop() ?? '';
  let normalized = text.split(requestedPath).join('');
  if (name) normalized = normalized.split(name).join('');
  return normalized;
}

export function shapeOf(response: WebResponse, requestedPath: string): NotFoundShape {
  return { status: response.status, normalized: normalizeBody(response.body, requestedPath) };
}

/** True when a 2xx probe answer looks like the site's not-found answer. */
export function looksNotFound(response: WebResponse, requestedPath: string, shapes: readonly NotFoundShape[]): boolean {
  const body = normalizeBody(response.body, requestedPath);
  return shapes.some((shape) => {
    if (!isSuccess(shape.status)) return false;
    if (shape.normalized === body) return true;
    const longest = Math.max(shape.normalized.length, body.length);
    // Dynamic bits (a timestamp, a CSRF token) change a few bytes of the same page.
    return (
      Math.abs(shape.normalized.length - body.length) <= Math.max(48, longest * 0.02) &&
      shape.normalized.slice(0, 256) === body.slice(0, 256)
    );
  });
}
