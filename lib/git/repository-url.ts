/**
 * The target of DESIGN §13: `https://host[:port]/owner/repo[.git]`, or `http://` under the
 * loopback setting (checked at scan time: the frame parses targets before it reads settings). The
 * scp-like `git@host:owner/repo.git` the API also accepts is cloned over https from the same host,
 * as GitHub, GitLab and Bitbucket serve both. Credentials never travel in the target.
 */
export function parseRepositoryTarget(raw: string): { ok: true; target: string } | { ok: false; message: string } {
  const value = raw.trim();
  const scp = /^[a-z0-9_.-]+@([a-z0-9.-]+):([\w.~-]+(?:\/[\w.~-]+)+)$/i.exec(value);
  let url: URL;
  try {
    url = new URL(scp ? `https://${scp[1]}/${scp[2]}` : value);
  } catch {
    return { ok: false, message: 'must be a repository URL such as https://github.com/org/repo' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, message: 'must be an https repository URL' };
  if (url.username !== '' || url.password !== '') {
    return { ok: false, message: 'must not carry credentials (scope.credential names an operator-held token)' };
  }
  if (!/^\/[^/]+\/?/.test(url.pathname) || url.pathname === '/')
    return { ok: false, message: 'must name a repository (a path after the host)' };
  if (url.search !== '' || url.hash !== '') return { ok: false, message: 'must not have a query or a fragment' };
  url.pathname = url.pathname.replace(/\/+$/, '');
  return { ok: true, target: url.toString() };
}
