import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTENT_SECURITY_POLICY, ensureUiBuilt, isUiBuildStale } from '../../local/web-ui.ts';
import { startTestService, type TestService } from '../helpers/local-service.ts';

describe('web UI bundle and how npm start serves it', () => {
  let dist: string;
  let service: TestService;
  beforeAll(async () => {
    dist = await ensureUiBuilt();
    service = await startTestService({ uiDir: dist });
  });
  afterAll(() => service.stop());

  const assets = () => readdirSync(join(dist, 'assets'));

  it('is up to date with the modules it was built from after ensureUiBuilt', async () => {
    expect(await isUiBuildStale()).toBe(false);
  });

  it('carries no AWS SDK and no server-only module', () => {
    for (const name of assets().filter((file) => file.endsWith('.js'))) {
      const code = readFileSync(join(dist, 'assets', name), 'utf8');
      for (const marker of [
        '@aws-sdk',
        '@smithy',
        'DynamoDBClient',
        'SchedulerClient',
        'SQSClient',
        'SecretsManagerClient',
        'x-amz-',
        'aws-lambda-powertools',
        '@middy',
        'jwtVerify',
      ]) {
        expect(code.includes(marker), `${name} contains ${marker}`).toBe(false);
      }
    }
  });

  it("imports the rules from shared/: the server's cron messages are in the bundle", () => {
    const code = assets()
      .filter((file) => file.endsWith('.js'))
      .map((name) => readFileSync(join(dist, 'assets', name), 'utf8'))
      .join('\n');
    expect(code.includes('fires more often than every')).toBe(true);
    expect(code.includes('apex domain, e.g. example.com')).toBe(true);
  });

  it('has no inline script, so the strict CSP holds', () => {
    const html = readFileSync(join(dist, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attributes, body] of scripts) {
      expect(attributes).toMatch(/\bsrc="\/assets\//);
      expect(body.trim()).toBe('');
    }
    expect(html).not.toMatch(/\sstyle=/);
  });

  it('prints the bundle size (gzip)', () => {
    let raw = 0;
    let gzip = 0;
    for (const name of assets()) {
      const bytes = readFileSync(join(dist, 'assets', name));
      raw += bytes.length;
      gzip += gzipSync(bytes, { level: 9 }).length;
    }
    console.log(`figure: web UI bundle ${(raw / 1024).toFixed(0)} KiB raw, ${(gzip / 1024).toFixed(0)} KiB gzip (${assets().join(', ')})`);
    expect(gzip).toBeGreaterThan(0);
  });

  it('serves index.html for every UI route with the CSP, security headers and no-cache', async () => {
    for (const path of [
      '/',
      '/settings/scheduled-scans',
      '/scans',
      '/scans/scan_01ABC',
      '/findings',
      '/issues',
      `/issues/iss_${'0'.repeat(32)}`,
      '/sign-in',
    ]) {
      const response = await fetch(`${service.runtime.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(await response.text()).toContain('<div id="root">');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).not.toContain('unsafe-inline');
  });

  it('sends a page asked for as localhost to the printed 127.0.0.1 address, where uploads are same-origin; the API answers under both', async () => {
    const { port } = service.runtime;
    const asLocalhost = (path: string) =>
      new Promise<{ status: number; location?: string }>((done, fail) => {
        request({ host: '127.0.0.1', port, path, headers: { host: `localhost:${port}` } }, (reply) => {
          reply.resume();
          done({ status: reply.statusCode ?? 0, location: reply.headers.location });
        })
          .on('error', fail)
          .end();
      });

    expect(await asLocalhost('/settings/scheduled-scans')).toEqual({
      status: 308,
      location: `${service.runtime.url}/settings/scheduled-scans`,
    });
    expect((await asLocalhost('/api/health')).status).toBe(200);
    expect((await fetch(`${service.runtime.url}/settings/scheduled-scans`)).status).toBe(200);
  });

  it('revalidates index.html by ETag', async () => {
    const first = await fetch(`${service.runtime.url}/`);
    const again = await fetch(`${service.runtime.url}/`, { headers: { 'if-none-match': first.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('caches hashed assets for a year, immutable', async () => {
    const name = assets().find((file) => file.endsWith('.js'))!;
    const response = await fetch(`${service.runtime.url}/assets/${name}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  });

  it('answers paths that are neither the UI nor the API with the JSON 404, and leaves /api alone', async () => {
    const missing = await fetch(`${service.runtime.url}/wp-admin/`);
    const asset = await fetch(`${service.runtime.url}/assets/../../package.json`);
    const api = await fetch(`${service.runtime.url}/api/health`);

    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
    expect(asset.status).toBe(404);
    expect(api.status).toBe(200);
    expect(api.headers.get('content-security-policy')).toBeNull();
  });
});

describe('web/dist staleness', () => {
  it('lists the repository modules the bundle was built from, shared/ rules included', async () => {
    const dist = await ensureUiBuilt();
    const inputs = JSON.parse(readFileSync(join(dist, 'build-inputs.json'), 'utf8')) as string[];

    expect(inputs).toEqual(
      expect.arrayContaining([
        'web/src/main.tsx',
        'shared/chat/scan-prompt.ts',
        'shared/domain/cron/crontab.ts',
        'shared/domain/schedule.ts',
      ]),
    );
    expect(inputs.some((file) => file.startsWith('shared/adapters/') || file.includes('node_modules'))).toBe(false);
  });
});
