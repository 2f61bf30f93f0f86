/**
 * On-premises Exchange serving Outlook on the web (DESIGN §19): autodiscover.<domain> (unless it
 * is Microsoft's CNAME) and the first MX host inside the domain (unless it is Exchange Online
 * Protection) are asked for /owa/auth/logon.aspx; Exchange answers with its build in
 * `X-OWA-Version` or in the page's resource paths.
 */
import { FetchError } from '../../../../lib/http/safe-fetch.ts';
import { describeFailure, text, type DomainHttp } from '../http.ts';

export type Owa = { kind: 'owa'; build: string | null } | { kind: 'none'; why: string } | { kind: 'error'; message: string };

export async function probeOwa(http: DomainHttp, host: string): Promise<Owa> {
  const url = `https://${host}/owa/auth/logon.aspx`;
  try {
    const response = await http.host(url, { maxBytes: 524_288 });
    const header = response.headers['x-owa-version'];
    const body = response.status === 200 ? text(response) : '';
    const fromBody = /\/owa\/(?:auth\/)?(\d{2}\.\d+\.\d+(?:\.\d+)?)\/(?:themes|scripts|resources)\//i.exec(body)?.[1];
    if (header || (response.status === 200 && (fromBody || /<title>\s*Outlook\b/i.test(body))))
      return { kind: 'owa', build: (header ?? fromBody ?? null)?.slice(0, 40) ?? null };
    if (response.status >= 500) return { kind: 'error', message: `${url} answered HTTP ${response.status}` };
    return { kind: 'none', why: `${host} answered HTTP ${response.status} without Outlook on the web` };
  } catch (error) {
    if (error instanceof FetchError) {
      if (error.code === 'host_not_found') return { kind: 'none', why: `${host} has no address` };
      if (error.code === 'too_many_redirects') return { kind: 'none', why: `${host} redirects /owa/ elsewhere` };
      if (error.code === 'network' && /ECONNREFUSED/.test(error.message)) return { kind: 'none', why: `nothing listens on ${host}:443` };
    }
    return { kind: 'error', message: describeFailure(url, error) };
  }
}
