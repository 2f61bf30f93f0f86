/** The target: the http(s) URL completions are POSTed to (DESIGN §23). */
export function parseLlmTarget(raw: string): { ok: true; url: URL } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, message: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, message: 'the scheme must be http or https' };
  if (url.username || url.password) return { ok: false, message: 'credentials in the URL are refused (use a credential, §16)' };
  if (!url.hostname) return { ok: false, message: 'no host' };
  url.hash = '';
  return { ok: true, url };
}
