/**
 * The transport rules (DESIGN §17 web.transport.*): mixed content on HTTPS pages (passive), and
 * whether an http:// target redirects to https:// (one request, judged in the engine's start).
 */
import type { Ledger } from '../ledger.ts';
import { isSuccess, type Page, type PassiveCheck } from '../page.ts';

const ACTIVE_CONTENT = new Set(['script', 'iframe', 'frame', 'form']);

function isStylesheet(attributes: Record<string, string>): boolean {
  return (attributes.rel ?? '').toLowerCase().split(/\s+/).includes('stylesheet');
}

export const mixedContentCheck: PassiveCheck = {
  inspect(page: Page, ledger: Ledger): void {
    if (page.url.protocol !== 'https:' || !page.html || !isSuccess(page.response.status)) return;
    ledger.examined('web.transport.mixed_content', page.path);
    for (const reference of page.html.references) {
      const loads = ACTIVE_CONTENT.has(reference.tag) || (reference.tag === 'link' && isStylesheet(reference.attributes));
      if (!loads || !/^http:\/\//i.test(reference.url)) continue;
      ledger.found('web.transport.mixed_content', {
        path: page.path,
        key: `${page.path.split('?')[0]} ${reference.url.slice(0, 300)}`,
        detail: `${page.path} loads ${reference.tag === 'form' ? 'a form action' : `a ${reference.tag}`} over http: ${reference.url.slice(0, 300)}`,
        evidence: { tag: reference.tag, url: reference.url.slice(0, 500) },
      });
    }
  },
};

/** The verdict of web.transport.http_only from the answer to `GET /` of an http:// target. */
export function judgeHttpOnly(
  ledger: Ledger,
  target: URL,
  answer: { status: number; location?: string } | { error: string },
): URL | undefined {
  const rule = 'web.transport.http_only';
  if ('error' in answer) {
    ledger.error(rule, `GET ${target.pathname} over http:// failed: ${answer.error}`);
    return undefined;
  }
  ledger.examined(rule, target.pathname);
  let next: URL | undefined;
  try {
    next = answer.location ? new URL(answer.location, target) : undefined;
  } catch {
    next = undefined;
  }
  const redirects = answer.status >= 300 && answer.status < 400 && next?.protocol === 'https:';
  if (!redirects) {
    ledger.found(rule, {
      path: target.pathname,
      key: target.origin,
      detail: `${target.origin} answers HTTP ${answer.status} over plain HTTP without redirecting to https://`,
      evidence: { status: answer.status, location: answer.location ?? null },
    });
    return undefined;
  }
  return next;
}
