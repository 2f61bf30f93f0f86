/**
 * The keyword prefilter of the secretlint rules (docs/secretscan.md, "Keyword prefilter"): for each
 * rule of the recommended preset, literals that every match it reports must contain, read off its
 * code and regular expressions (@secretlint/secretlint-rule-preset-recommend 13.1.0,
 * module/index.js). A text holding none of a rule's literals cannot give that rule a match, so the
 * rule is left out of that text's lint call; gitleaks' per-rule `keywords` do the same.
 *
 * An entry is a list of groups, every group needing one of its literals present (`@` alongside a
 * URL scheme, say). A literal is compared as written, or, in `ignoringCase`, against any mix of
 * upper and lower case: the rules that use them (Slack's webhook, the connection strings) have the
 * `i` flag without `u`, under which an ASCII letter matches only its two cases, so an ASCII literal
 * found case-insensitively is sound. Every literal here is ASCII.
 */

import { ASSIGNMENT_NAME_STARTS } from './entropy-rule.ts';

/** The preset's rule ids are this prefix and a short name; the table uses the short name. */
export const SECRETLINT_RULE_PREFIX = '@secretlint/secretlint-rule-';

interface Group {
  /** Compared as written. */
  literals?: readonly string[];
  /** Lower-case ASCII, compared ignoring case. */
  ignoringCase?: readonly string[];
}

export type RuleKeywords =
  /** The rule can match only when one literal of every group is in the text. */
  | { groups: readonly Group[]; why: string }
  /** The comment filter: it reports nothing itself; it runs whenever another rule runs. */
  | { withAnyRule: true; why: string };

const any = (...literals: string[]): Group => ({ literals });

/** Every rule id of the preset, by short name. A rule the preset adds and this table lacks always runs (and fails rule-keywords.test.ts). */
export const RULE_KEYWORDS: Readonly<Record<string, RuleKeywords>> = {
  aws: {
    groups: [
      {
        literals: ['A3T', 'AKIA', 'AGPA', 'AIDA', 'AROA', 'AIPA', 'ANPA', 'ANVA', 'ASIA'],
        ignoringCase: ['secret_access', 'secretaccess'],
      },
    ],
    why:
      'access key id: `(A3T[A-Z0-9]|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA)[A-Z0-9]{16}`, no i flag. Secret key: ' +
      '`(?:SECRET|secret|Secret)_?(?:ACCESS|access|Access)_?(?:KEY|key|Key)`: lower-cased, always secret_access or secretaccess. ' +
      'Its account-id scan needs none: detect.ts drops AWSAccountID messages (an account id grants nothing).',
  },
  gcp: {
    groups: [any('private_key_id', '\\u')],
    why:
      'reads a `.json` text with JSON.parse and needs the key "private_key_id" in it: written plainly, or with a \\u escape ' +
      '(JSON can spell any character of a key so, and only with a lower-case u). Its .p12 check is withheld (detect.ts).',
  },
  privatekey: {
    groups: [any('PRIVATE KEY')],
    why: '`-----BEGIN[ ]?(?:(?:RSA|DSA|EC|OPENSSH|PGP) )?PRIVATE KEY(?: BLOCK)?-----…`, flags gm.',
  },
  npm: {
    groups: [any('x-oauth-basic@github', '_authToken=', 'npm_')],
    why: 'package.json: `https?://(.{1,256}):x-oauth-basic@github.com/`; .npmrc: `_authToken=([^$].*)`; any file: `npm_[A-Za-z0-9_]{36}`; no i flag.',
  },
  basicauth: {
    groups: [any('://'), any('@')],
    why: '`(?:https?|ftp|ftps)://user:password@host.tld`, no i flag: the scheme separator and the @ are literal.',
  },
  slack: {
    groups: [{ literals: ['xoxb-', 'xoxp-', 'xapp-', 'xoxa-', 'xoxo-', 'xoxr-'], ignoringCase: ['hooks.slack.com/services/'] }],
    why: 'tokens: `\\b(?:xoxb|xoxp|xapp|xoxa|xoxo|xoxr)-`, no i flag; webhooks: `https://hooks\\.slack\\.com/services/T…` with flags gi.',
  },
  sendgrid: { groups: [any('SG.')], why: '`(?<!\\p{L})SG\\.\\w{1,128}\\.…`, flags gu.' },
  shopify: { groups: [any('shppa_', 'shpca_', 'shpat_', 'shpss_')], why: '`(shppa|shpca|shpat|shpss)_[a-zA-Z0-9]{32,64}`, flags gu.' },
  stripe: {
    groups: [any('sk_live_', 'sk_test_', 'rk_live_', 'rk_test_')],
    why: '`(?<prefix>sk_live|sk_test|rk_live|rk_test)_[a-zA-Z0-9]{24,99}`, flags gu.',
  },
  github: {
    groups: [any('ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_')],
    why: '`(ghp|gho|ghu|ghs|ghr)_…`, `github_pat_…`, `ghs_[0-9]{1,20}_…` (app installation), flags gu.',
  },
  gitlab: { groups: [any('glpat-')], why: '`glpat-[A-Za-z0-9_-]{20,128}`, flags gu.' },
  grafana: { groups: [any('glc_', 'glsa_')], why: '`glc_[A-Za-z0-9+/]{32,400}`, `glsa_[A-Za-z0-9]{32}_…`, flags gu.' },
  openai: {
    groups: [any('T3BlbkFJ')],
    why: 'both alternatives, `sk-(?:proj|svcacct|admin)-…T3BlbkFJ…` and `sk-[a-zA-Z0-9]{20}T3BlbkFJ…`, hold T3BlbkFJ; flag g.',
  },
  anthropic: { groups: [any('sk-ant-api0')], why: '`sk-ant-api0\\d-[A-Za-z0-9_-]{90,128}AA`, flags gu.' },
  groq: { groups: [any('gsk_')], why: '`gsk_[a-zA-Z0-9]{52}`, flags gu.' },
  huggingface: { groups: [any('hf_')], why: '`hf_[a-zA-Z]{34}`, flags gu.' },
  linear: { groups: [any('lin_api_')], why: '`lin_api_[a-zA-Z0-9_]{32,128}`, flags gu.' },
  notion: { groups: [any('ntn_')], why: '`ntn_[0-9]{11}[A-Za-z0-9]{35}`, flags gu.' },
  '1password': { groups: [any('ops_ey')], why: '`ops_(ey[A-Za-z0-9+/=]{100,1280}fQ={0,2})`, flags gu.' },
  'database-connection-string': {
    groups: [{ ignoringCase: ['mongodb', 'mysql', 'postgres'] }, any('@')],
    why:
      '`mongodb(?:\\+srv)?://`, `(?:jdbc:)?mysql(?:x)?://`, `postgres(?:ql)?://`, flags gi; a match is reported only with ' +
      'its optional `user:password@` part, so an @ too.',
  },
  'hashicorp-vault': { groups: [any('hvs.', 'hvb.', 'hvr.')], why: '`hvs\\.…`, `hvb\\.…`, `hvr\\.…`, flags gu.' },
  vercel: { groups: [any('vcp_', 'vci_', 'vca_', 'vcr_', 'vck_')], why: '`(vcp|vci|vca|vcr|vck)_[A-Za-z0-9]{20,60}`, flags gu.' },
  databricks: { groups: [any('dapi')], why: '`dapi[A-Fa-f0-9]{32}(?:-[0-9])?`, flags gu (the prefix is case-sensitive).' },
  docker: { groups: [any('dckr_pat_')], why: '`dckr_pat_[a-zA-Z0-9_-]{27}`, flags gu.' },
  figma: { groups: [any('figd_')], why: '`figd_[A-Za-z0-9_-]{40,200}`, flags gu.' },
  cloudflare: { groups: [any('cfk_', 'cfut_', 'cfat_')], why: '`(cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}`, flags gu.' },
  tailscale: { groups: [any('tskey-')], why: '`tskey-[a-z]{2,20}-…`, flags gu.' },
  'filter-comments': {
    withAnyRule: true,
    why: 'applies secretlint-disable comments to the other rules’ messages: it runs whenever any other rule runs.',
  },
};

interface Candidate {
  literal: string;
  ignoringCase: boolean;
  /** Where it occurs is wanted, not whether (`LiteralSet.scan`'s `starts`). */
  located: boolean;
}

const TRIGRAMS = 1 << 21;

/** The 7-bit codes of a character's cases (`ignoringCase` and a letter: both). */
function cases(char: string, ignoringCase: boolean): number[] {
  const codes = new Set([
    char.charCodeAt(0),
    ...(ignoringCase ? [char.toLowerCase().charCodeAt(0), char.toUpperCase().charCodeAt(0)] : []),
  ]);
  return [...codes];
}

/**
 * Finds which of a fixed set of ASCII literals occur in a text, and where others start, in one pass over its characters
 * (a regular expression alternating ~70 literals ran at a third of the speed: it tries the
 * alternation at nearly every position). Each position's last three characters (7 bits each)
 * index a table of the trigrams literals start with; only there are the candidates compared.
 * A character over 127 aliases some ASCII code in the index, which costs a comparison and never a
 * miss. Literals shorter than three characters are searched with `includes`.
 */
export class LiteralSet {
  readonly #starts = new Uint8Array(TRIGRAMS);
  readonly #candidates = new Map<number, Candidate[]>();
  readonly #short: Candidate[] = [];

  /**
   * `exact` and `ignoringCase`: literals whose presence `scan` reports; `located`: literals (lower
   * case, compared ignoring case, three characters or more) whose every start it reports.
   */
  constructor(exact: readonly string[], ignoringCase: readonly string[], located: readonly string[] = []) {
    for (const literal of [...exact, ...ignoringCase, ...located]) {
      if (literal === '' || !/^[\x20-\x7e]+$/.test(literal)) throw new Error(`keyword ${JSON.stringify(literal)} is not printable ASCII`);
    }
    for (const literal of [...ignoringCase, ...located]) {
      if (literal !== literal.toLowerCase()) throw new Error(`keyword ${literal} must be lower case`);
    }
    for (const literal of located) if (literal.length < 3) throw new Error(`located keyword ${literal} is under three characters`);
    const all = [
      ...[...new Set(exact)].map((literal) => ({ literal, ignoringCase: false, located: false })),
      ...[...new Set(ignoringCase)].map((literal) => ({ literal, ignoringCase: true, located: false })),
      ...[...new Set(located)].map((literal) => ({ literal, ignoringCase: true, located: true })),
    ];
    for (const candidate of all) {
      const { literal } = candidate;
      if (literal.length < 3) {
        this.#short.push(candidate);
        continue;
      }
      for (const a of cases(literal[0], candidate.ignoringCase))
        for (const b of cases(literal[1], candidate.ignoringCase))
          for (const c of cases(literal[2], candidate.ignoringCase)) {
            const key = (a << 14) | (b << 7) | c;
            this.#starts[key] = 1;
            this.#candidates.set(key, [...(this.#candidates.get(key) ?? []), candidate]);
          }
    }
  }

  /** The literals present in `text` (those compared ignoring case as given: lower case). */
  found(text: string): Set<string> {
    return this.scan(text).present;
  }

  /**
   * The literals present in `text` (those compared ignoring case as given: lower case), and every
   * offset where a `located` literal starts, ascending, each once.
   */
  scan(text: string): { present: Set<string>; starts: number[] } {
    const present = new Set<string>();
    const located: number[] = [];
    const starts = this.#starts;
    let key = 0;
    for (let end = 0; end < text.length; end += 1) {
      key = ((key << 7) | (text.charCodeAt(end) & 127)) & (TRIGRAMS - 1);
      if (starts[key] === 0 || end < 2) continue;
      for (const candidate of this.#candidates.get(key)!) {
        if (candidate.located) {
          if (located.at(-1) !== end - 2 && occursAt(text, end - 2, candidate)) located.push(end - 2);
        } else if (!present.has(candidate.literal) && occursAt(text, end - 2, candidate)) present.add(candidate.literal);
      }
    }
    for (const { literal, ignoringCase } of this.#short) {
      if ((ignoringCase ? text.toLowerCase() : text).includes(literal)) present.add(literal);
    }
    return { present, starts: located };
  }
}

function occursAt(text: string, at: number, { literal, ignoringCase }: Candidate): boolean {
  if (at + literal.length > text.length) return false;
  for (let index = 0; index < literal.length; index += 1) {
    let code = text.charCodeAt(at + index);
    // ASCII case folding only: the rules' `i` flag without `u` folds nothing else onto ASCII.
    if (ignoringCase && code >= 65 && code <= 90) code |= 32;
    if (code !== literal.charCodeAt(index)) return false;
  }
  return true;
}

const ALL_EXACT = Object.values(RULE_KEYWORDS).flatMap((entry) =>
  'groups' in entry ? entry.groups.flatMap((group) => group.literals ?? []) : [],
);
const ALL_FOLDED = Object.values(RULE_KEYWORDS).flatMap((entry) =>
  'groups' in entry ? entry.groups.flatMap((group) => group.ignoringCase ?? []) : [],
);
// The entropy rule's names are found in the same pass: its expression then runs only where one starts.
const LITERALS = new LiteralSet(ALL_EXACT, ALL_FOLDED, ASSIGNMENT_NAME_STARTS);

const entries = new Map<string, RuleKeywords | undefined>();

/** The table's entry for a full secretlint rule id (looked up once per id). */
function entryOf(ruleId: string): RuleKeywords | undefined {
  if (!entries.has(ruleId)) {
    entries.set(ruleId, ruleId.startsWith(SECRETLINT_RULE_PREFIX) ? RULE_KEYWORDS[ruleId.slice(SECRETLINT_RULE_PREFIX.length)] : undefined);
  }
  return entries.get(ruleId);
}

/**
 * Whether the rule `ruleId` (a full secretlint id) can report a match in a text holding the
 * literals `present`. A rule the table does not know always can.
 */
function canMatch(ruleId: string, present: ReadonlySet<string>): boolean {
  const entry = entryOf(ruleId);
  if (!entry) return true;
  if ('withAnyRule' in entry) return false;
  if (present.size === 0) return false;
  return entry.groups.every(
    (group) =>
      (group.literals ?? []).some((literal) => present.has(literal)) || (group.ignoringCase ?? []).some((literal) => present.has(literal)),
  );
}

/** Whether the rule runs only alongside others (the comment filter). */
export function runsWithAnyRule(ruleId: string): boolean {
  const entry = entryOf(ruleId);
  return entry !== undefined && 'withAnyRule' in entry;
}

/** What one pass over a text tells the rules. */
export interface TextKeywords {
  /** Of the rule ids asked about (in their order), the ones that can report a match, with the comment filter when any can; empty when none can. */
  ruleIds: string[];
  /** Every offset where a match of the entropy rule can start (findHighEntropyAssignments' `starts`). */
  entropyStarts: number[];
}

export function keywordsIn(ruleIds: readonly string[], text: string): TextKeywords {
  const { present, starts } = LITERALS.scan(text);
  const scanners = ruleIds.filter((ruleId) => canMatch(ruleId, present));
  return {
    ruleIds: scanners.length === 0 ? [] : ruleIds.filter((ruleId) => runsWithAnyRule(ruleId) || scanners.includes(ruleId)),
    entropyStarts: starts,
  };
}

/**
 * Of `ruleIds` (in their order), the ones that can report a match in `text`, with the comment
 * filter added when any can; empty when none can.
 */
export function rulesThatCanMatch(ruleIds: readonly string[], text: string): string[] {
  return keywordsIn(ruleIds, text).ruleIds;
}
