/**
 * CPE 2.3 formatted strings (NISTIR 7695) and the applicability statements of NVD's CVE API 2.0
 * (`configurations[].nodes[].cpeMatch[]`), judged for ONE detected product version. NVD's own
 * answer to `virtualMatchString` is a candidate list, never a verdict: the engine re-checks each
 * CVE's version ranges here. What the scan cannot know (the host's operating system, another
 * product an AND configuration requires) is `unknown`, never `true`.
 */

/** part, vendor, product, version, update, edition, language, sw_edition, target_sw, target_hw, other. */
export type CpeFields = readonly string[];

const FIELD_COUNT = 11;

/** The fields of a `cpe:2.3:` formatted string, unescaped and lowercased; undefined when it is not one. */
export function parseCpe(text: string): CpeFields | undefined {
  if (!text.startsWith('cpe:2.3:')) return undefined;
  const fields: string[] = [];
  let current = '';
  for (let i = 'cpe:2.3:'.length; i < text.length; i += 1) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      current += text[i + 1];
      i += 1;
    } else if (c === ':') {
      fields.push(current);
      current = '';
    } else current += c;
  }
  fields.push(current);
  if (fields.length !== FIELD_COUNT || fields.some((f) => f === '')) return undefined;
  return fields.map((f) => f.toLowerCase());
}

/** One value of a formatted string: characters other than letters, digits, `_`, `-` and `.` escaped. */
function escapeValue(value: string): string {
  return value.replace(/[^A-Za-z0-9_.-]/g, (c) => `\\${c}`);
}

/** `cpe:2.3:a:<vendor>:<product>:<version>:<update>:*:*:*:*:*:*`. */
export function formatCpe(vendor: string, product: string, version: string, update = '*'): string {
  const value = (v: string) => (v === '*' || v === '-' ? v : escapeValue(v));
  return `cpe:2.3:a:${value(vendor)}:${value(product)}:${value(version)}:${value(update)}:*:*:*:*:*:*`;
}

const PRE_RELEASE = /^(alpha|beta|rc|pre|dev|a|b)$/i;

/** Runs of digits and runs of letters; separators dropped. */
function tokens(version: string): string[] {
  return version.toLowerCase().match(/\d+|[a-z]+/g) ?? [];
}

/**
 * Orders two upstream version strings as vulnerability databases compare them: numeric runs as
 * numbers, letter runs as text, a missing run below any number (`1.2` < `1.2.1`) but above a
 * pre-release marker (`2.4.0rc1` < `2.4.0`).
 */
export function compareUpstreamVersions(a: string, b: string): number {
  const ta = tokens(a);
  const tb = tokens(b);
  for (let i = 0; i < Math.max(ta.length, tb.length); i += 1) {
    const x = ta[i];
    const y = tb[i];
    if (x === undefined) return y !== undefined && PRE_RELEASE.test(y) ? 1 : -1;
    if (y === undefined) return PRE_RELEASE.test(x) ? -1 : 1;
    const nx = /^\d/.test(x);
    const ny = /^\d/.test(y);
    if (nx && ny) {
      const d = Number(x) - Number(y);
      if (d !== 0) return d < 0 ? -1 : 1;
    } else if (nx !== ny) return nx ? 1 : -1;
    else if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** A cpeMatch entry as NVD's CVE API 2.0 publishes it. */
export interface CpeMatch {
  vulnerable: boolean;
  criteria: string;
  versionStartIncluding?: string;
  versionStartExcluding?: string;
  versionEndIncluding?: string;
  versionEndExcluding?: string;
}

export interface ConfigurationNode {
  operator?: 'AND' | 'OR';
  negate?: boolean;
  cpeMatch: CpeMatch[];
}

export interface Configuration {
  operator?: 'AND' | 'OR';
  negate?: boolean;
  nodes: ConfigurationNode[];
}

/** What the scan detected: the product's CPE fields and the version as the service announced it (`7.4p1`). */
export interface DetectedProduct {
  cpe: CpeFields;
  announced: string;
}

type Truth = true | false | 'unknown';

const and = (values: Truth[]): Truth => (values.includes(false) ? false : values.includes('unknown') ? 'unknown' : values.length > 0);
const or = (values: Truth[]): Truth => (values.includes(true) ? true : values.includes('unknown') ? 'unknown' : false);
const not = (value: Truth): Truth => (value === 'unknown' ? value : !value);

/**
 * A range bound against the detected version. A bound written with the update (`9.3p2`) is
 * compared with the announced version whole; a bound without one (`7.7`) with the version field,
 * so `versionEndIncluding 7.7` holds 7.7p1, as NVD means it.
 */
function compareToBound(product: DetectedProduct, bound: string): number {
  const boundHasUpdate = /\d[a-z]+\d*$/i.test(bound);
  return compareUpstreamVersions(boundHasUpdate ? product.announced : product.cpe[3], bound);
}

function inRange(product: DetectedProduct, match: CpeMatch): boolean {
  if (match.versionStartIncluding !== undefined && compareToBound(product, match.versionStartIncluding) < 0) return false;
  if (match.versionStartExcluding !== undefined && compareToBound(product, match.versionStartExcluding) <= 0) return false;
  if (match.versionEndIncluding !== undefined && compareToBound(product, match.versionEndIncluding) > 0) return false;
  if (match.versionEndExcluding !== undefined && compareToBound(product, match.versionEndExcluding) >= 0) return false;
  return true;
}

const hasRange = (m: CpeMatch) =>
  m.versionStartIncluding !== undefined ||
  m.versionStartExcluding !== undefined ||
  m.versionEndIncluding !== undefined ||
  m.versionEndExcluding !== undefined;

/**
 * Whether a cpeMatch entry describes the detected product: `false` for another version (or
 * outside the range), `unknown` for another product (the host may run it or not) or for a field
 * the scan did not learn (an edition, a target platform).
 */
export function matchesProduct(product: DetectedProduct, match: CpeMatch): Truth {
  const criteria = parseCpe(match.criteria);
  if (!criteria) return 'unknown';
  if (criteria[0] !== product.cpe[0] || criteria[1] !== product.cpe[1] || criteria[2] !== product.cpe[2]) return 'unknown';
  let result: Truth = true;
  // version (3) and update (4): ranges apply when the criteria's version is ANY.
  if (criteria[3] === '*' || criteria[3] === '-') {
    if (hasRange(match) && !inRange(product, match)) return false;
    if (criteria[3] === '-' && !hasRange(match)) return false;
  } else if (compareUpstreamVersions(criteria[3], product.cpe[3]) !== 0) return false;
  for (let i = 4; i < FIELD_COUNT; i += 1) {
    const wanted = criteria[i];
    const known = product.cpe[i];
    if (wanted === '*') continue;
    if (known === '*') result = 'unknown';
    else if (wanted !== known) return false;
  }
  return result;
}

export interface Applicability {
  /** `true`: a configuration holds for the product; `unknown`: one holds only with something not determined. */
  applies: Truth;
  /** The vulnerable entries of the product that matched (the evidence of the range). */
  matched: CpeMatch[];
}

/** Whether a CVE's configurations make the detected product vulnerable. */
export function applicability(product: DetectedProduct, configurations: readonly Configuration[]): Applicability {
  const matched: CpeMatch[] = [];
  let applies: Truth = false;
  for (const configuration of configurations) {
    const ours: CpeMatch[] = [];
    const nodes = configuration.nodes.map((node) => {
      const values = node.cpeMatch.map((entry) => {
        const value = matchesProduct(product, entry);
        if (value === true && entry.vulnerable) ours.push(entry);
        return value;
      });
      const value = node.operator === 'AND' ? and(values) : or(values);
      return node.negate ? not(value) : value;
    });
    const combined = configuration.operator === 'AND' ? and(nodes) : or(nodes);
    const value = configuration.negate ? not(combined) : combined;
    // A configuration counts only through a vulnerable entry of the detected product itself.
    if (ours.length === 0 || value === false) continue;
    matched.push(...ours);
    if (value === true) applies = true;
    else if (applies === false) applies = 'unknown';
  }
  return { applies, matched };
}
