/**
 * Debian's version ordering (deb-version(7), dpkg's `verrevcmp`): `[epoch:]upstream[-revision]`,
 * epochs numerically, then upstream and revision alternately comparing non-digit runs (where `~`
 * sorts before everything, even the end, and letters before other characters) and digit runs as
 * numbers. `1:7.4p1-10+deb9u10` is after `1:7.4p1-10+deb9u4`, which text order gets wrong.
 */
function order(c: string | undefined): number {
  if (c === undefined || (c >= '0' && c <= '9')) return 0;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  if (c === '~') return -1;
  return c.charCodeAt(0) + 256;
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9';

function verrevcmp(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    let firstDiff = 0;
    while ((i < a.length && !isDigit(a[i])) || (j < b.length && !isDigit(b[j]))) {
      const ac = order(a[i]);
      const bc = order(b[j]);
      if (ac !== bc) return ac - bc;
      i += 1;
      j += 1;
    }
    while (a[i] === '0') i += 1;
    while (b[j] === '0') j += 1;
    while (isDigit(a[i]) && isDigit(b[j])) {
      if (firstDiff === 0) firstDiff = a.charCodeAt(i) - b.charCodeAt(j);
      i += 1;
      j += 1;
    }
    if (isDigit(a[i])) return 1;
    if (isDigit(b[j])) return -1;
    if (firstDiff !== 0) return firstDiff;
  }
  return 0;
}

function parts(version: string): { epoch: number; upstream: string; revision: string } {
  const colon = version.indexOf(':');
  const epoch = colon === -1 ? 0 : Number(version.slice(0, colon));
  const rest = colon === -1 ? version : version.slice(colon + 1);
  const dash = rest.lastIndexOf('-');
  return {
    epoch: Number.isFinite(epoch) ? epoch : 0,
    upstream: dash === -1 ? rest : rest.slice(0, dash),
    revision: dash === -1 ? '' : rest.slice(dash + 1),
  };
}

/** Negative, zero or positive as `a` sorts before, with or after `b` in Debian's order. */
export function compareDebianVersions(a: string, b: string): number {
  const pa = parts(a);
  const pb = parts(b);
  if (pa.epoch !== pb.epoch) return pa.epoch - pb.epoch;
  return verrevcmp(pa.upstream, pb.upstream) || verrevcmp(pa.revision, pb.revision);
}
