import type { ScanCheck, ScanError } from '../../shared/domain/scan-job.ts';

/**
 * Why a scan could not look, in one line per cause (issue 41): a scan's errors and errored checks
 * grouped by target and cause. One dead endpoint errors every check of it with the same root
 * cause, and a 60-target scan repeats that 60 times; a reader wants "59 of 60 targets refused the
 * connection" and the one that is different.
 */

/** One cause and the targets it stopped. */
export interface FailureGroup {
  /** The cause in words, without a target: "refused the connection". */
  cause: string;
  /** False when no known cause matched: `cause` is then the scanner's message, generalised. */
  known: boolean;
  /** Targets the cause stopped, in the scan's order; empty for errors that name no target. */
  targets: string[];
  /** The checks it left in error (rule ids), sorted. */
  checks: string[];
  /** The distinct messages as the scanner wrote them (at most MAX_MESSAGES), for the details. */
  messages: string[];
  /** How many distinct messages there were in all. */
  messageCount: number;
}

export const MAX_MESSAGES = 5;

interface Cause {
  test: RegExp;
  words: string;
}

/**
 * Known causes, most telling first: a message that names several (an SSLv2 probe that timed out
 * and an SSLv3 probe that read HTML) is filed under the first. The words complete "<target> …".
 */
const CAUSES: readonly Cause[] = [
  { test: /ECONNREFUSED|connection refused|refused the connection/i, words: 'refused the connection (nothing listens on that port)' },
  { test: /ENOTFOUND|EAI_AGAIN|NXDOMAIN|does not resolve|getaddrinfo/i, words: 'does not resolve in DNS' },
  { test: /EHOSTUNREACH|ENETUNREACH|unreachable/i, words: 'cannot be reached from the scanner' },
  {
    test: /not a TLS record \(first bytes [0-9a-f]+, text "(?:HTTP|<)|wrong version number|http request|plain HTTP/i,
    words: 'answered plain HTTP, not TLS',
  },
  { test: /not a TLS record/i, words: 'answered something that is not TLS' },
  { test: /ECONNRESET|socket hang up|connection reset|closed the connection/i, words: 'closed the connection before answering' },
  { test: /ETIMEDOUT|no (?:complete )?answer (?:from [^ ]+ )?within|did not answer/i, words: 'did not answer in time' },
  { test: /no time left in the invocation/i, words: 'was not scanned: the scan ran out of time' },
  { test: /is not set|not configured in this deployment/i, words: 'could not be checked: this deployment is not configured for it' },
];

/** Messages that only repeat that an earlier step failed: kept only when a target has nothing else. */
const CONSEQUENCES = /^no TLS handshake succeeded(?:, so no certificate was received)?$/i;

interface Item {
  target: string | null;
  message: string;
  check: string | null;
}

/** The target a dispatch error names (`<target>: <message>`), when it is one of the scan's. */
function splitTarget(message: string, targets: readonly string[]): { target: string | null; message: string } {
  for (const target of targets) {
    if (message.startsWith(`${target}: `)) return { target, message: message.slice(target.length + 2) };
    if (message.endsWith(`for target ${target}`)) return { target, message };
  }
  return { target: null, message };
}

/** A message with its addresses, ports and numbers taken out: what stays is its cause. */
function generalised(message: string, target: string | null): string {
  let text = message;
  if (target) text = text.split(target).join('…');
  return text
    .replace(/\[[0-9a-f:]+\](?::\d+)?/gi, '…')
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?::\d+)?\b/g, '…')
    .replace(/\b\d+\b/g, 'N')
    .trim();
}

function causeOf(item: Item): { cause: string; known: boolean } {
  const words = CAUSES.find((cause) => cause.test.test(item.message))?.words;
  return words === undefined ? { cause: generalised(item.message, item.target), known: false } : { cause: words, known: true };
}

/**
 * The scan's errors and errored checks, one group per cause, the largest first. A target's
 * follow-on messages ("no TLS handshake succeeded") are dropped when it has a cause of its own.
 */
export function failureGroups(job: {
  target: string;
  targets: readonly string[];
  errors: readonly ScanError[];
  checks: readonly ScanCheck[];
}): FailureGroup[] {
  const targets = [job.target, ...job.targets];
  const items: Item[] = [
    ...job.errors.map((error) => ({ ...splitTarget(error.message, targets), check: null })),
    ...job.checks
      .filter((check) => check.status === 'error')
      .map((check) => ({ target: check.target, message: check.detail, check: check.id })),
  ];
  const hasOwnCause = new Set(items.filter((item) => !CONSEQUENCES.test(item.message)).map((item) => item.target));
  const groups = new Map<string, { known: boolean; targets: Set<string>; checks: Set<string>; messages: Set<string> }>();
  for (const item of items) {
    if (CONSEQUENCES.test(item.message) && hasOwnCause.has(item.target)) continue;
    const { cause, known } = causeOf(item);
    const group = groups.get(cause) ?? { known, targets: new Set(), checks: new Set(), messages: new Set() };
    if (item.target !== null) group.targets.add(item.target);
    if (item.check !== null) group.checks.add(item.check);
    group.messages.add(item.message);
    groups.set(cause, group);
  }
  // Checks left in error by a follow-on failure are counted with their target's cause.
  for (const item of items) {
    if (item.check === null || !CONSEQUENCES.test(item.message) || !hasOwnCause.has(item.target)) continue;
    for (const group of groups.values()) if (item.target !== null && group.targets.has(item.target)) group.checks.add(item.check);
  }
  const order = new Map(targets.map((target, index) => [target, index]));
  return [...groups.entries()]
    .map(([cause, group]) => ({
      // One message in all reads best as written; several are shown by what they share.
      cause: !group.known && group.messages.size === 1 ? [...group.messages][0] : cause,
      known: group.known,
      targets: [...group.targets].sort((a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0)),
      checks: [...group.checks].sort(),
      messages: [...group.messages].slice(0, MAX_MESSAGES),
      messageCount: group.messages.size,
    }))
    .sort((a, b) => b.targets.length - a.targets.length || b.checks.length - a.checks.length || a.cause.localeCompare(b.cause));
}

/**
 * A group as one line: "127.0.0.1:8099 answered plain HTTP, not TLS", "59 of 60 targets refused
 * the connection", "All 3 targets …", or the cause alone when it names no target.
 */
export function failureLine(group: FailureGroup, targetCount: number, display: (target: string) => string = (target) => target): string {
  const { targets, cause, known } = group;
  if (targets.length === 0) return cause[0].toUpperCase() + cause.slice(1);
  // A known cause completes a sentence about its targets; a scanner's own message follows a colon.
  const join = known ? ' ' : ': ';
  if (targets.length === 1) return `${display(targets[0])}${join}${cause}`;
  if (targets.length === targetCount) return `All ${targetCount} targets${join}${cause}`;
  return `${targets.length} of ${targetCount} targets${join}${cause}`;
}
