/**
 * The dast target: an http(s) URL without credentials or a fragment. Its origin bounds the crawl.
 */
export function parseWebTarget(raw: string): { ok: true; url: URL } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return { ok: false, message: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: 'the scheme must be http or https' };
  if (url.username || url.password) return { ok: false, message: 'a URL with credentials is not a target' };
  if (url.hostname === '') return { ok: false, message: 'the URL has no host' };
  url.hash = '';
  return { ok: true, url };
}
