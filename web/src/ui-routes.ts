/**
 * The UI's routes: the local server answers these paths with index.html (SPA fallback) and the
 * router renders them. Anything else outside /api and /assets is a 404.
 */
export const UI_ROUTE_PATTERNS: readonly RegExp[] = [
  /^\/$/,
  /^\/sign-in$/,
  /^\/settings(?:\/scheduled-scans|\/notifications|\/credentials|\/sla)?$/,
  /^\/settings\/scheduled-scans\/[A-Za-z0-9_-]{1,64}$/,
  /^\/scans$/,
  /^\/scans\/[A-Za-z0-9_-]{1,64}$/,
  /^\/findings$/,
  /^\/issues$/,
  /^\/issues\/iss_[0-9a-f]{32}$/,
];

export function isUiRoute(path: string): boolean {
  return UI_ROUTE_PATTERNS.some((pattern) => pattern.test(path));
}
