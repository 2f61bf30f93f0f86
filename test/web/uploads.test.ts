import { describe, expect, it } from 'vitest';
import { ARTIFACT_CONTENT_TYPES } from '../../shared/domain/artifact.ts';
import { CHECK_POLL_DELAYS_MS, declaredContentType } from '../../web/src/uploads.ts';

describe('web uploads', () => {
  it("declares the browser's content type when the purpose accepts it, else octet-stream", () => {
    expect(declaredContentType('rua', { type: 'text/xml' })).toBe('text/xml');
    expect(declaredContentType('rua', { type: 'Application/GZIP' })).toBe('application/gzip');
    expect(declaredContentType('eml', { type: 'message/rfc822' })).toBe('message/rfc822');
    // A browser that does not know .eml, a .txt report, a PDF: the check judges the bytes.
    expect(declaredContentType('eml', { type: '' })).toBe('application/octet-stream');
    expect(declaredContentType('rua', { type: 'text/plain' })).toBe('application/octet-stream');
    expect(declaredContentType('eml', { type: 'application/pdf' })).toBe('application/octet-stream');
    for (const purpose of ['rua', 'eml'] as const) expect(ARTIFACT_CONTENT_TYPES[purpose]).toContain('application/octet-stream');
  });

  it('waits for the check with backoff, and gives up after about a minute', () => {
    const total = CHECK_POLL_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);
    expect(CHECK_POLL_DELAYS_MS.slice(0, 5)).toEqual([200, 400, 800, 1_600, 3_000]);
    expect(Math.max(...CHECK_POLL_DELAYS_MS)).toBe(3_000);
    expect(total).toBeGreaterThanOrEqual(50_000);
    expect(total).toBeLessThanOrEqual(70_000);
  });
});
