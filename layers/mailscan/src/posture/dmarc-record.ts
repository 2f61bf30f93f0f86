/** DMARC record syntax (RFC 7489 §6.3, RFC 9091 for np). Pure: problems are values. */
export type Policy = 'none' | 'quarantine' | 'reject';

export interface DmarcTags {
  p: Policy | null;
  sp: Policy | null;
  np: Policy | null;
  pct: number;
  adkim: 'r' | 's';
  aspf: 'r' | 's';
  rua: string[];
  ruf: string[];
  fo: string | null;
  ri: number | null;
}

export type ParsedDmarc = { ok: true; tags: DmarcTags; problems: string[] } | { ok: false; error: string };

const POLICIES = new Set(['none', 'quarantine', 'reject']);

export function isDmarcRecord(text: string): boolean {
  return /^v\s*=\s*DMARC1\s*(;|$)/i.test(text);
}

export function parseDmarc(record: string): ParsedDmarc {
  if (!isDmarcRecord(record)) return { ok: false, error: 'does not start with v=DMARC1' };
  const raw = new Map<string, string>();
  for (const part of record.split(';').slice(1)) {
    // RFC 7489 §6.4 ABNF: a tag name is ALPHA *(ALPHA / DIGIT / "_"); unknown tags are ignored (§6.3).
    const match = /^\s*([a-z][a-z0-9_]*)\s*=\s*(.*?)\s*$/i.exec(part);
    if (match) raw.set(match[1].toLowerCase(), match[2]);
    else if (part.trim() !== '') return { ok: false, error: `malformed tag "${part.trim()}"` };
  }
  const problems: string[] = [];
  const policy = (tag: string): Policy | null => {
    const value = raw.get(tag)?.toLowerCase();
    if (value === undefined) return null;
    if (POLICIES.has(value)) return value as Policy;
    problems.push(`${tag}=${value} is not none, quarantine or reject`);
    return null;
  };
  const alignment = (tag: string): 'r' | 's' => {
    const value = raw.get(tag)?.toLowerCase() ?? 'r';
    if (value === 'r' || value === 's') return value;
    problems.push(`${tag}=${value} is not r or s`);
    return 'r';
  };
  const pctText = raw.get('pct');
  let pct = 100;
  if (pctText !== undefined) {
    if (/^\d{1,3}$/.test(pctText) && Number(pctText) <= 100) pct = Number(pctText);
    else problems.push(`pct=${pctText} is not 0-100`);
  }
  const uris = (tag: string) =>
    (raw.get(tag) ?? '')
      .split(',')
      .map((uri) => uri.trim())
      .filter((uri) => uri !== '');
  const tags: DmarcTags = {
    p: policy('p'),
    sp: policy('sp'),
    np: policy('np'),
    pct,
    adkim: alignment('adkim'),
    aspf: alignment('aspf'),
    rua: uris('rua'),
    ruf: uris('ruf'),
    fo: raw.get('fo') ?? null,
    ri: raw.has('ri') ? Number(raw.get('ri')) : null,
  };
  // §6.6.3: a missing or invalid p with a valid rua is treated as p=none; without rua the record is unusable.
  if (tags.p === null) {
    if (tags.rua.length === 0) return { ok: false, error: 'no valid p= tag' };
    problems.push('no valid p= tag: treated as p=none because rua is set');
    tags.p = 'none';
  }
  return { ok: true, tags, problems };
}

/** The mailbox of a `mailto:` report URI (without the optional `!size`), or null for other schemes. */
export function mailtoAddress(uri: string): string | null {
  const match = /^mailto:([^!\s]+@[^!\s]+?)(?:!\d+[kmgt]?)?$/i.exec(uri);
  return match ? decodeURIComponent(match[1]).toLowerCase() : null;
}
