/**
 * The method rules (DESIGN §17 web.methods.*). OPTIONS on the root and on the directories the
 * crawl found: an Allow header listing PUT or DELETE fires (neither is ever sent). TRACE is
 * judged by exactly one TRACE request to / carrying a marker header: echoed means the body holds
 * the marker.
 */
import type { OriginClient } from '../http-client.ts';
import type { Ledger } from '../ledger.ts';
import { blockedReason } from './exposure.ts';

const MAX_OPTIONS_PATHS = 12;

export async function runMethodChecks(client: OriginClient, ledger: Ledger, paths: readonly string[], nonce: string): Promise<void> {
  const targets = [...new Set(['/', ...paths])].slice(0, MAX_OPTIONS_PATHS);
  for (const path of targets) {
    const url = new URL(path, client.origin);
    try {
      const response = await client.request(url, { method: 'OPTIONS', maxBodyBytes: 16_384 });
      const blocked = blockedReason(response);
      if (blocked) {
        ledger.error('web.methods.unsafe_allowed', `OPTIONS ${path}: ${blocked}`);
        continue;
      }
      ledger.examined('web.methods.unsafe_allowed', path);
      const allow = `${response.headers.allow ?? ''},${response.headers['access-control-allow-methods'] ?? ''}`;
      const methods = new Set(
        allow
          .toUpperCase()
          .split(',')
          .map((method) => method.trim())
          .filter(Boolean),
      );
      const unsafe = ['PUT', 'DELETE'].filter((method) => methods.has(method));
      if (unsafe.length > 0)
        ledger.found('web.methods.unsafe_allowed', {
          path,
          key: `${path} ${unsafe.join(',')}`,
          detail: `OPTIONS ${path} lists ${unsafe.join(' and ')}`,
          evidence: {
            allow: response.headers.allow ?? null,
            access_control_allow_methods: response.headers['access-control-allow-methods'] ?? null,
          },
        });
    } catch (error) {
      ledger.error('web.methods.unsafe_allowed', `OPTIONS ${path}: ${(error as Error).message}`);
    }
  }
  ledger.note('web.methods.unsafe_allowed', `OPTIONS on ${targets.length} path${targets.length === 1 ? '' : 's'}`);

  const marker = `webscan-trace-${nonce}`;
  try {
    const response = await client.request(new URL('/', client.origin), {
      method: 'TRACE',
      headers: { 'x-webscan-trace': marker },
      maxBodyBytes: 65_536,
    });
    const blocked = blockedReason(response);
    if (blocked) return ledger.error('web.methods.trace', `TRACE /: ${blocked}`);
    ledger.examined('web.methods.trace', '/');
    if (response.status >= 200 && response.status < 300 && response.body.toString('latin1').includes(marker)) {
      ledger.found('web.methods.trace', {
        path: '/',
        key: client.origin.origin,
        detail: 'TRACE / echoes the request, headers included',
        evidence: { status: response.status, content_type: response.headers['content-type'] ?? null },
      });
    }
  } catch (error) {
    ledger.error('web.methods.trace', `TRACE /: ${(error as Error).message}`);
  }
}
