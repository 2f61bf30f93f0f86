/**
 * The web UI's security headers: one definition for the local server (local/web-ui.ts) and the
 * CloudFront response headers policy (infra/constructs/ui.ts). Scripts, styles and fetches from
 * this origin only, no inline script or style, no framing. `uploadOrigins` are where the browser
 * PUTs artifact bytes besides this origin: in AWS the artifacts bucket's S3 endpoint, which the
 * presigned URLs name; locally none (the upload URL is on the local server itself).
 */
export function contentSecurityPolicy(uploadOrigins: string[] = []): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    ["connect-src 'self'", ...uploadOrigins].join(' '),
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "object-src 'none'",
  ].join('; ');
}

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

export const REFERRER_POLICY = 'strict-origin-when-cross-origin';
export const PERMISSIONS_POLICY = 'camera=(), microphone=(), geolocation=(), payment=()';

export const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': REFERRER_POLICY,
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': PERMISSIONS_POLICY,
};

/** Hashed bundle files never change under their name; index.html is always revalidated. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
export const INDEX_CACHE_CONTROL = 'no-cache';
