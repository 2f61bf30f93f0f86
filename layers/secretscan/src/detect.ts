import { extname } from 'node:path';
import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';
import { creator as recommended, rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';
import { ruleIdFor } from './catalogue.ts';
import { findHighEntropyAssignments } from './entropy-rule.ts';
import { countsAsSecret } from './false-positives.ts';
import { keywordsIn } from './rule-keywords.ts';

// secretlint's profiler is on by default: it puts a mark in node's performance timeline for every
// rule of every file and keeps each entry in arrays nobody reads, so memory grew with every file
// scanned (hundreds of MB over a large history) and each call paid ~0.5 ms for it.
secretLintProfiler.setEnabled(false);

// @secretlint/types is the core's dependency, not ours: its types are reached through lintSource.
type SecretLintCoreConfig = Parameters<typeof lintSource>[0]['options']['config'];
type SecretLintCoreResultMessage = Awaited<ReturnType<typeof lintSource>>['messages'][number];

/** One secret found in one text: never logged, never reported; only hashed and masked (secret-evidence.ts). */
export interface SecretMatch {
  ruleId: string;
  /** What the library called it (e.g. STRIPE_SECRET_KEY_TEST), for the evidence. */
  kind: string;
  value: string;
  /** 1-based line of the value in the text. */
  line: number;
}

/**
 * secretlint's recommended preset, with the AWS rule's access-key-id scan on (gitleaks and
 * trufflehog report AKIA ids; the preset leaves it off). Its comment filter applies
 * `secretlint-disable-line`, `secretlint-disable-next-line` and disable/enable blocks.
 */
const CONFIG: SecretLintCoreConfig = {
  rules: [
    {
      id: '@secretlint/secretlint-rule-preset-recommend',
      rule: recommended,
      rules: [{ id: '@secretlint/secretlint-rule-aws', options: { enableIDScanRule: true } }],
    },
  ],
};

type PresetRule = (typeof presetRules)[number];
const PRESET_RULE_IDS: readonly string[] = presetRules.map((rule: PresetRule) => rule.meta.id);
const AWS_RULE_ID = '@secretlint/secretlint-rule-aws';

/**
 * The configs of the rule subsets the prefilter picks, by their ids joined. The preset registers
 * all its rules whatever its options say (@secretlint/core 13.1.0 ignores `disabled` on a
 * preset's rules), so a subset lists the preset's rules themselves, in the preset's order, with
 * the same options: the same rules over the same text give the same messages in the same order.
 */
const subsetConfigs = new Map<string, SecretLintCoreConfig>();
/** Texts made to hold many mixes of keywords could make thousands of subsets: the cache starts over past this. */
const MAX_SUBSET_CONFIGS = 256;

function subsetConfig(ruleIds: readonly string[]): SecretLintCoreConfig {
  const key = ruleIds.join('\n');
  let config = subsetConfigs.get(key);
  if (!config) {
    const chosen = presetRules.filter((rule: PresetRule) => ruleIds.includes(rule.meta.id));
    config = {
      rules: chosen.map((rule: PresetRule) => ({
        id: rule.meta.id,
        rule,
        ...(rule.meta.id === AWS_RULE_ID ? { options: { enableIDScanRule: true } } : {}),
      })),
    };
    if (subsetConfigs.size >= MAX_SUBSET_CONFIGS) subsetConfigs.clear();
    subsetConfigs.set(key, config);
  }
  return config;
}

/** The data field that holds the secret in each secretlint message (the rest name a file). */
const VALUE_FIELDS = ['KEY', 'TOKEN', 'ID', 'URI', 'URL', 'CREDENTIAL'] as const;

export class UnmappedSecretlintRule extends Error {
  override readonly name = 'UnmappedSecretlintRule';
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let index = text.indexOf('\n'); index !== -1; index = text.indexOf('\n', index + 1)) starts.push(index + 1);
  return starts;
}

function lineAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (starts[middle] <= offset) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}

/** The password of a URL with credentials (the secret), or the whole URL when it has none. */
function passwordOf(url: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:([^@\s]+)@/i.exec(url);
  return match ? match[1] : url;
}

/** The secret of a message and where it starts in the text; null when the message holds none. */
function secretOf(message: SecretLintCoreResultMessage, text: string): { value: string; index: number } | null {
  const data = (message.data ?? {}) as Record<string, unknown>;
  if (message.messageId === 'PrivateKeyJSON') {
    const privateKey = (JSON.parse(text) as { private_key?: unknown }).private_key;
    return typeof privateKey === 'string' ? { value: privateKey, index: Math.max(0, text.indexOf('"private_key"')) } : null;
  }
  const field = VALUE_FIELDS.find((name) => typeof data[name] === 'string' && data[name] !== '');
  if (!field) return null;
  const raw = data[field] as string;
  const value = field === 'URI' || field === 'CREDENTIAL' || message.messageId === 'IncomingWebhook' ? passwordOf(raw) : raw;
  // secretlint's ranges are not always the value's (the AWS secret's starts at its name): find it from there.
  const found = text.indexOf(value, Math.max(0, message.range[0] - raw.length));
  return { value, index: found === -1 ? message.range[0] : found };
}

function disabledInline(text: string, starts: readonly number[], line: number): boolean {
  const lineText = (number: number): string => (number < 1 ? '' : text.slice(starts[number - 1], starts[number] ?? text.length));
  return lineText(line).includes('secretlint-disable-line') || lineText(line - 1).includes('secretlint-disable-next-line');
}

/**
 * The extension secretlint's rules see. The GCP rule looks for a service-account JSON only when it
 * is told `.json` (without it, such a key was reported as a bare private_key). `.p12` is withheld:
 * for it the rule reads the file at `filePath` from the local disk (the scan's own file system, not
 * the repository), and a text blob is never a PKCS#12 file anyway (binary blobs are skipped).
 */
function ruleExtension(path: string): string {
  const extension = extname(path).toLowerCase();
  return extension === '.p12' ? '' : extension;
}

export interface DetectOptions {
  /** Run the entropy rule (the path guards decide). */
  entropy: boolean;
  /**
   * Leave out the secretlint rules whose keywords are absent from the text (rule-keywords.ts), and
   * lint nothing when no rule can match. On by default; off runs the whole preset as configured
   * above (the differential test and the bench compare the two).
   */
  prefilter?: boolean;
}

/** secretlint's messages from the rules `ruleIds` (the prefilter's choice), or from the whole preset. */
async function secretlintMessages(
  path: string,
  text: string,
  ruleIds: readonly string[] | undefined,
): Promise<SecretLintCoreResultMessage[]> {
  let config = CONFIG;
  if (ruleIds !== undefined) {
    if (ruleIds.length === 0) return [];
    config = subsetConfig(ruleIds);
  }
  const result = await lintSource({
    source: { filePath: `/${path}`, ext: ruleExtension(path), content: text, contentType: 'text' },
    options: { config },
  });
  return result.messages;
}

/**
 * False when `detectSecrets(path, text, { entropy, prefilter: true })` finds nothing whatever the
 * path and `entropy`: no secretlint rule's keywords are in the text (so no lint call) and the
 * entropy rule has no candidate in it. The scan asks it of each blob while indexing the pack
 * (blob-triage.ts), and reads again only the blobs it is true of.
 */
export function mayHoldSecrets(text: string): boolean {
  const { ruleIds, entropyStarts } = keywordsIn(PRESET_RULE_IDS, text);
  return ruleIds.length > 0 || findHighEntropyAssignments(text, entropyStarts).length > 0;
}

/**
 * Finds the secrets in one text: secretlint's rules always, the entropy rule when `entropy` (the
 * path guards decide). A secretlint rule this catalogue does not map throws: a preset upgrade
 * that adds a rule must add its id, not lose its findings.
 */
export async function detectSecrets(path: string, text: string, { entropy, prefilter = true }: DetectOptions): Promise<SecretMatch[]> {
  // One pass finds the rules that can match and where the entropy rule's names start; without the
  // prefilter, the whole preset and the entropy rule's scan of the whole text, as before it.
  const keywords = prefilter ? keywordsIn(PRESET_RULE_IDS, text) : undefined;
  const messages = await secretlintMessages(path, text, keywords?.ruleIds);
  const entropyMatches = entropy ? findHighEntropyAssignments(text, keywords?.entropyStarts) : [];
  if (messages.length === 0 && entropyMatches.length === 0) return [];
  const starts = lineStarts(text);
  const matches: SecretMatch[] = [];
  const claimed = new Set<string>();
  for (const message of messages) {
    const ruleId = ruleIdFor(message.ruleId, message.messageId);
    if (ruleId === null) continue;
    if (ruleId === undefined) throw new UnmappedSecretlintRule(`secretlint rule ${message.ruleId} has no secret.* rule id`);
    const secret = secretOf(message, text);
    if (!secret) continue;
    claimed.add(secret.value);
    // A checksum that fails or a placeholder is claimed (the entropy rule does not report it again) and dropped.
    if (!countsAsSecret(secret.value)) continue;
    matches.push({ ruleId, kind: message.messageId ?? message.ruleId, value: secret.value, line: lineAt(starts, secret.index) });
  }
  // The key inside a service-account file is that account's: one finding, not two.
  const serviceAccount = matches.some((match) => match.ruleId === 'secret.gcp_service_account');
  const kept = serviceAccount ? matches.filter((match) => match.ruleId !== 'secret.private_key') : matches;
  for (const { value, index } of entropyMatches) {
    if ([...claimed].some((known) => known.includes(value) || value.includes(known))) continue;
    const line = lineAt(starts, index);
    if (disabledInline(text, starts, line) || !countsAsSecret(value)) continue;
    kept.push({ ruleId: 'secret.generic_high_entropy', kind: 'high_entropy_assignment', value, line });
  }
  return kept;
}
