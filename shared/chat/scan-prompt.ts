import { formatRuns } from '../domain/cron/cron-fields.ts';
import { convertCrontab, isValidTimeZone } from '../domain/cron/crontab.ts';
import { apexDomain } from '../domain/apex-domain.ts';
import type { TargetPolicy } from '../domain/network-policy.ts';
import { targetRulesWith } from '../domain/scan-targets.ts';
import { SCAN_TYPES, scanTypes, type ScanType } from '../domain/scan-types.ts';

/**
 * The "Ask to scan" prompt (DESIGN §8): one sentence → one API request, shown to the user before
 * anything is sent. Deterministic: word lists and patterns, no model, no network. It never guesses
 * a target or a scan type; what it cannot place it says, with examples.
 */

/** One API call, exactly as the UI will send it. */
export interface PromptRequest {
  method: 'POST';
  path: string;
  body?: Record<string, unknown>;
}

export type PromptResult =
  { kind: 'request'; request: PromptRequest; summary: string } | { kind: 'not_understood'; message: string; examples: string[] };

/** What the parser may know about the tenant and the deployment. */
export interface PromptContext {
  /** The tenant's schedules, for "run X now" and "pause X". */
  schedules?: ReadonlyArray<{ id: string; name: string; enabled: boolean }>;
  /**
   * The scan types this deployment has a runner for (`runner_available` of GET /api/scan-types/).
   * A sentence naming another type is answered in words, not turned into a request the API would
   * refuse, and the examples offer only these. Absent: every type.
   */
  runnable?: ReadonlySet<ScanType>;
  /**
   * The options a sentence names for a scan type ("ports 22,6390", "branch dev", "without
   * history", "dkim selectors s1,google"); the UI reads them with the type's scope schema
   * (web/src/scope-schema.ts `optionsFromWords`). Absent: no options. The API checks what is sent.
   */
  optionsIn?: (scanType: ScanType, words: string) => Record<string, unknown>;
  /**
   * The addresses this deployment's targets may reach (`target_policy` of GET /api/scan-types/),
   * so a target the API accepts is not refused here. Absent: the default (no private networks, no
   * loopback).
   */
  policy?: TargetPolicy;
}

/** Each example with the scan type it asks for (null: a verb on an existing schedule). */
const EXAMPLES: ReadonlyArray<readonly [string, ScanType | null]> = [
  ['scan mail security of example.com', 'email_security'],
  ['check mail security of example.com every weekday at 9:30 Paris time', 'email_security'],
  ['schedule an SSL scan of www.example.com:443 daily', 'ssl'],
  ['scan email of example.com every 6 hours', 'email_security'],
  ['check mail of example.com on the 1st at 04:00 UTC', 'email_security'],
  ['scan secrets of https://github.com/example/app weekly', 'secret_scan'],
  ['check vulnerabilities of db.example.com every Monday at 6:00', 'vm'],
  ['schedule a DAST scan of https://app.example.com with cron 30 2 * * 1', 'dast'],
  ['run Mail posture now', null],
  ['pause Mail posture', null],
];

export const PROMPT_EXAMPLES = EXAMPLES.map(([example]) => example);

/** The examples a user of this deployment can send: those of runnable scan types, and the verbs. */
export function promptExamples(runnable?: ReadonlySet<ScanType>): string[] {
  return EXAMPLES.filter(([, type]) => type === null || !runnable || runnable.has(type)).map(([example]) => example);
}

/** The prompt checks as it is typed, so it holds every rule, the m365 one included, ready. */
const defaultTargetRules = targetRulesWith(apexDomain);
const rulesByPolicy = new Map<string, ReturnType<typeof targetRulesWith>>();

/** The target checks under `policy`, built once per policy. */
function targetRulesFor(policy: TargetPolicy | undefined): ReturnType<typeof targetRulesWith> {
  if (!policy) return defaultTargetRules;
  const key = `${policy.allowPrivate}:${policy.allowLoopback ?? false}`;
  let rules = rulesByPolicy.get(key);
  if (!rules) rulesByPolicy.set(key, (rules = targetRulesWith(apexDomain, policy)));
  return rules;
}

const SCAN_TYPE_WORDS: Array<[RegExp, ScanType]> = [
  // m365 first: "m365 scan of example.com dkim selectors s1" names DKIM as an option, not mail security.
  [/\b(?:m365|microsoft 365|office 365|o365)\b/, 'm365'],
  [/\b(?:e-?mail|mail|dmarc|spf|dkim)(?:\s+security)?\b/, 'email_security'],
  [/\b(?:ssl|tls|certificates?)\b/, 'ssl'],
  [/\b(?:dast|web app(?:lication)?|web(?:site)? scan)\b/, 'dast'],
  [/\b(?:vapt|pen(?:etration)?[ -]?test(?:ing)?)\b/, 'vapt'],
  [/\bsecrets?\b/, 'secret_scan'],
  [/\b(?:nhi|non-human identit(?:y|ies))\b/, 'nhi'],
  [/\b(?:vm|vulnerabilit(?:y|ies)|vuln)\b/, 'vm'],
  [/\b(?:sbom|software bill of materials|dependency (?:scan|inventory))\b/, 'sbom'],
  [/\bvdi\b/, 'vdi'],
  [/\b(?:medical|dicom|pacs|fhir|hl7)\b/, 'medical'],
  [/\b(?:ai red[ -]?team(?:ing)?|red[ -]?team|llm)\b/, 'ai_red_team'],
];

const DAY_NAMES = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const DAY_PATTERN = '(sun|mon|tue|tues|wed|thu|thur|thurs|fri|sat)(?:day|nesday|sday|urday)?s?';

// Zones whose everyday name is not the IANA city (or is a renamed one).
const ZONE_ALIASES: Record<string, string> = {
  utc: 'UTC',
  gmt: 'UTC',
  zulu: 'UTC',
  'new york': 'America/New_York',
  nyc: 'America/New_York',
  'san francisco': 'America/Los_Angeles',
  'los angeles': 'America/Los_Angeles',
  seattle: 'America/Los_Angeles',
  washington: 'America/New_York',
  boston: 'America/New_York',
  mumbai: 'Asia/Kolkata',
  delhi: 'Asia/Kolkata',
  bangalore: 'Asia/Kolkata',
  kolkata: 'Asia/Kolkata',
  kyiv: 'Europe/Kyiv',
  beijing: 'Asia/Shanghai',
  munich: 'Europe/Berlin',
  frankfurt: 'Europe/Berlin',
  geneva: 'Europe/Zurich',
  milan: 'Europe/Rome',
};

let cityZones: Map<string, string> | undefined;
/** City name (lower case, spaces) → IANA zone, from the runtime's own zone list. */
function zonesByCity(): Map<string, string> {
  if (cityZones) return cityZones;
  cityZones = new Map();
  const supported = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  for (const zone of supported) {
    if (!/^(?:Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific)\//.test(zone)) continue;
    cityZones.set(
      zone
        .slice(zone.lastIndexOf('/') + 1)
        .replace(/_/g, ' ')
        .toLowerCase(),
      zone,
    );
  }
  for (const [city, zone] of Object.entries(ZONE_ALIASES)) if (isValidTimeZone(zone)) cityZones.set(city, zone);
  return cityZones;
}

function notUnderstood(message: string): PromptResult {
  return { kind: 'not_understood', message, examples: PROMPT_EXAMPLES };
}

/** Parses one sentence of the Ask to scan prompt. */
export function parseScanPrompt(input: string, context: PromptContext = {}): PromptResult {
  const result = parseSentence(input, context);
  return result.kind === 'not_understood' ? { ...result, examples: promptExamples(context.runnable) } : result;
}

function parseSentence(input: string, context: PromptContext): PromptResult {
  const text = input.trim().replace(/\s+/g, ' ');
  if (text === '') return notUnderstood('Type what to scan, for example one of these.');
  const lower = text.toLowerCase().replace(/[.!?]+$/, '');

  const action = parseScheduleAction(lower, context);
  if (action) return action;

  const target = findAliasTarget(text, lower) ?? findTarget(text);
  if (!target.ok) return notUnderstood(target.message);
  // Scan-type words are looked for outside the target: mail.example.com is not a mail scan.
  const rest = lower.replace(target.raw.toLowerCase(), ' ');
  const scanType = findScanType(rest);
  const offered = SCAN_TYPES.filter((type) => !context.runnable || context.runnable.has(type)).map((type) => scanTypes[type].label);
  if (scanType === null) {
    return notUnderstood(`Which kind of scan of ${target.raw}? Name one: ${offered.join(', ')}.`);
  }
  if (context.runnable && !context.runnable.has(scanType)) {
    return notUnderstood(
      `${scanTypes[scanType].label} scans have no runner in this deployment. ${offered.length ? `It can run: ${offered.join(', ')}.` : 'It can run no scan type.'}`,
    );
  }
  const checkedTarget = targetRulesFor(context.policy)[scanType](target.raw);
  if (!checkedTarget.ok)
    return notUnderstood(`${target.raw} is not a target for ${scanTypes[scanType].label}: it ${checkedTarget.message}.`);
  const targetValue = checkedTarget.value;
  // Options by the type's schema ("ports 22,6390", "branch dev without history"); for mail security
  // also its bare words ("with discover and leak", "skipping reputation").
  const named = context.optionsIn?.(scanType, text.replace(target.raw, ' ')) ?? {};
  const scope = scanType === 'email_security' ? { ...emailScope(rest), ...named } : named;

  const cadence = parseCadence(rest);
  if (!cadence.ok) return notUnderstood(cadence.message);
  const label = scanTypes[scanType].label;
  if (cadence.value === null) {
    if (/\bschedule\b/.test(rest))
      return notUnderstood('How often? Add a cadence such as "daily", "every Monday at 9:00" or "every 6 hours".');
    return {
      kind: 'request',
      request: { method: 'POST', path: '/api/scans/', body: { scan_type: scanType, target: targetValue, ...scopeField(scope) } },
      summary: `Start a ${label} scan of ${targetValue} now.`,
    };
  }
  const body: Record<string, unknown> = { name: `${label} of ${targetValue}`.slice(0, 200), scan_type: scanType, target: targetValue };
  if ('preset' in cadence.value) {
    body.cadence = cadence.value.preset;
  } else {
    body.cadence = 'custom';
    body.cron_expression = cadence.value.cron;
    body.timezone = cadence.value.timezone;
  }
  Object.assign(body, scopeField(scope));
  const when = 'preset' in cadence.value ? `${cadence.value.preset} (UTC)` : `cron ${cadence.value.cron} in ${cadence.value.timezone}`;
  return {
    kind: 'request',
    request: { method: 'POST', path: '/api/scans/schedules/', body },
    summary: `Create a schedule: ${label} of ${targetValue}, ${when}.`,
  };
}

function scopeField(scope: Record<string, unknown>): Record<string, unknown> {
  return Object.keys(scope).length > 0 ? { scope } : {};
}

/** "run <name> now", "pause <name>", "resume <name>": only for a schedule the tenant has. */
function parseScheduleAction(lower: string, context: PromptContext): PromptResult | null {
  const match =
    /^(?:please )?(run|start|trigger) (?:the )?(.+?)(?: schedule)? (?:right )?now$/.exec(lower) ??
    /^(?:please )?(run now|pause|disable|stop|resume|enable|unpause)(?::)? (?:the )?(.+?)(?: schedule)?$/.exec(lower);
  if (!match) return null;
  const verb = match[1] === 'run now' || match[1] === 'start' || match[1] === 'trigger' ? 'run' : match[1];
  const name = match[2].replace(/^["'“]|["'”]$/g, '').trim();
  const schedules = context.schedules ?? [];
  const exact = schedules.filter((schedule) => schedule.name.toLowerCase() === name);
  const candidates = exact.length > 0 ? exact : schedules.filter((schedule) => schedule.name.toLowerCase().includes(name));
  if (candidates.length === 0) {
    // "run an email scan of example.com now" is a manual scan, not a schedule's name.
    if (verb === 'run' && findScanType(name) !== null) return null;
    return notUnderstood(`There is no schedule named "${name}". Check the Scheduled Scans tab for its exact name.`);
  }
  if (candidates.length > 1) {
    return notUnderstood(
      `"${name}" names ${candidates.length} schedules (${candidates.map((s) => s.name).join(', ')}): use the full name.`,
    );
  }
  const [schedule] = candidates;
  const base = `/api/scans/schedules/${schedule.id}`;
  if (verb === 'run') {
    return { kind: 'request', request: { method: 'POST', path: `${base}/run/` }, summary: `Run the schedule "${schedule.name}" now.` };
  }
  const pausing = verb === 'pause' || verb === 'disable' || verb === 'stop';
  if (pausing !== schedule.enabled) {
    return notUnderstood(`The schedule "${schedule.name}" is already ${schedule.enabled ? 'running' : 'paused'}.`);
  }
  return {
    kind: 'request',
    request: { method: 'POST', path: `${base}/toggle/` },
    summary: `${pausing ? 'Pause' : 'Resume'} the schedule "${schedule.name}".`,
  };
}

function findScanType(lower: string): ScanType | null {
  for (const [pattern, type] of SCAN_TYPE_WORDS) if (pattern.test(lower)) return type;
  // "scan ports 22,6390 on 10.0.0.5": ports without a type's name are a network scan.
  if (/\bports?\b/.test(lower)) return 'vapt';
  return null;
}

type TargetFound = { ok: true; raw: string } | { ok: false; message: string };

// URLs, scp-like git remotes, IPs and CIDRs, then host names (with an optional port).
const TARGET_PATTERNS = [
  /\bhttps?:\/\/[^\s"'<>]+/gi,
  /\b[a-z0-9_.-]+@[a-z0-9.-]+:[\w.~/-]+/gi,
  /\b\d{1,3}(?:\.\d{1,3}){3}(?:\/\d{1,2}|:\d{1,5})?\b/g,
  /\b[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?:\/\d{1,3})?/gi,
  /\b(?:[a-z0-9\u00a1-\uffff](?:[a-z0-9\u00a1-\uffff-]{0,61}[a-z0-9\u00a1-\uffff])?\.)+[a-z\u00a1-\uffff][a-z0-9\u00a1-\uffff-]*[a-z0-9\u00a1-\uffff](?::\d{1,5})?\b/gi,
];

/**
 * An nhi scan's target is a credential alias of the vault (DESIGN §20), which no host pattern
 * finds: in a sentence that names nhi, the word after "credential", "alias", "of" or "for" that is
 * written as an alias (`nhi scan of ci-deploy-key weekly`). Undefined otherwise.
 */
function findAliasTarget(text: string, lower: string): TargetFound | undefined {
  if (!SCAN_TYPE_WORDS.some(([pattern, type]) => type === 'nhi' && pattern.test(lower))) return undefined;
  const found = [...text.matchAll(/\b(?:credential|alias|of|for)\s+([a-z0-9][a-z0-9_-]{0,62})(?=[\s,.;!?]|$)/g)]
    .map((match) => match[1])
    .filter((alias) => !/^(?:nhi|the|a|an|my|our|credential|alias|key|token)$/.test(alias));
  if (found.length === 0) return undefined;
  if (new Set(found).size > 1) return { ok: false, message: `Name one credential at a time (found ${[...new Set(found)].join(', ')}).` };
  return { ok: true, raw: found[0] };
}

/** The one target of the sentence, as written. Never guessed: none or several is a question back. */
function findTarget(text: string): TargetFound {
  let remaining = text;
  const found: string[] = [];
  for (const pattern of TARGET_PATTERNS) {
    for (const match of remaining.match(pattern) ?? []) {
      const raw = match.replace(/[),.;!?'"]+$/, '');
      found.push(raw);
      remaining = remaining.replace(match, ' ');
    }
  }
  if (found.length === 0) return { ok: false, message: 'Which target? Name a domain, host, URL, IP or repository: nothing is guessed.' };
  if (found.length === 1) return { ok: true, raw: found[0] };
  // "ssl scan of 10.0.0.9:443 sni www.example.com": the one written after "of", "on" or "for" is
  // the target, the other an option's value. Two such, or none, is a question back.
  const before = (raw: string) => text.slice(0, text.indexOf(raw));
  const named = found.filter((raw) => /\b(?:of|on|for|against)\s+$/i.test(before(raw)));
  // The others each follow an option's name ("sni"), not "and" or a comma ("of a.com and b.com").
  const optionValues = found.filter((raw) => raw !== named[0] && /\b(?!(?:and|or|plus|then|also)\b)[a-z]+:?\s+$/i.test(before(raw)));
  if (named.length === 1 && optionValues.length === found.length - 1) return { ok: true, raw: named[0] };
  return { ok: false, message: `Name one target at a time (found ${found.join(', ')}).` };
}

function emailScope(lower: string): Record<string, boolean> {
  const scope: Record<string, boolean> = {};
  if (/\b(?:without|no|skip(?:ping)?) reputation\b|\breputation off\b/.test(lower)) scope.reputation = false;
  if (/\b(?:discover|discovery)\b/.test(lower)) scope.discover = true;
  if (/\b(?:leak|leaks|breach|breaches)\b/.test(lower)) scope.leak = true;
  return scope;
}

type Cadence = { preset: 'daily' | 'weekly' | 'monthly' } | { cron: string; timezone: string };
type CadenceFound = { ok: true; value: Cadence | null } | { ok: false; message: string };

/**
 * The cadence of the sentence: a literal crontab or @macro, the bare presets (daily, weekly,
 * monthly: DESIGN §5's UTC times), or a crontab built from phrases (every Monday, weekdays at
 * 9:30, every 6 hours, on the 1st at 04:00) in the named zone, UTC by default. A day without a
 * time fires at 00:00. Whatever comes out is checked by the server's own conversion.
 */
function parseCadence(lower: string): CadenceFound {
  const zone = findZone(lower);
  if (!zone.ok) return zone;
  const text = zone.rest;
  const timezone = zone.value ?? 'UTC';

  const literal = findLiteralCron(text);
  if (literal !== null) return checked({ cron: literal, timezone });

  const time = findTime(text);
  if (!time.ok) return time;
  const days = findDays(text);
  const dayOfMonth = /\b(?:on )?(?:the )?(\d{1,2})(?:st|nd|rd|th)\b/.exec(text);
  const everyMinutes = /\bevery (\d{1,2}) min(?:ute)?s?\b/.exec(text);
  const everyHours = /\bevery (\d{1,2}) hours?\b|\bevery hour\b|\bhourly\b/.exec(text);
  const everyDays = /\bevery (\d{1,2}) days\b/.exec(text);
  const daily = /\b(?:daily|every day|each day|every night|nightly)\b/.test(text);
  const weekly = /\b(?:weekly|every week|each week|once a week)\b/.test(text);
  const monthly = /\b(?:monthly|every month|each month|once a month)\b/.test(text);
  const hasAny =
    days !== null || dayOfMonth || everyMinutes || everyHours || everyDays || daily || weekly || monthly || time.value !== null;
  if (!hasAny)
    return zone.value === null
      ? { ok: true, value: null }
      : { ok: false, message: `A time zone but no cadence: say how often, e.g. "every weekday at 9:30 ${zone.name} time".` };

  // The bare words keep their preset cadence (DESIGN §5), which runs in UTC.
  if (zone.value === null && time.value === null && days === null && !dayOfMonth) {
    if (daily && !everyHours && !everyMinutes) return { ok: true, value: { preset: 'daily' } };
    if (weekly) return { ok: true, value: { preset: 'weekly' } };
    if (monthly) return { ok: true, value: { preset: 'monthly' } };
  }

  if (everyMinutes) {
    if (time.value !== null || days !== null || dayOfMonth)
      return { ok: false, message: '"every N minutes" cannot be combined with a time or a day.' };
    return checked({ cron: `*/${Number(everyMinutes[1])} * * * *`, timezone });
  }
  if (everyHours) {
    const step = everyHours[1] === undefined ? 1 : Number(everyHours[1]);
    if (step < 1 || step > 23) return { ok: false, message: '"every N hours" takes N from 1 to 23.' };
    const minute = time.value?.minute ?? 0;
    return checked({ cron: `${minute} ${step === 1 ? '*' : `*/${step}`} * * ${days ?? '*'}`, timezone });
  }
  const { hour, minute } = time.value ?? { hour: 0, minute: 0 };
  if (everyDays) return checked({ cron: `${minute} ${hour} */${Number(everyDays[1])} * *`, timezone });
  if (dayOfMonth) {
    if (days !== null) return { ok: false, message: 'Name a day of the month or days of the week, not both.' };
    return checked({ cron: `${minute} ${hour} ${Number(dayOfMonth[1])} * *`, timezone });
  }
  if (monthly) return checked({ cron: `${minute} ${hour} 1 * *`, timezone });
  if (weekly && days === null) return checked({ cron: `${minute} ${hour} * * 1`, timezone });
  return checked({ cron: `${minute} ${hour} * * ${days ?? '*'}`, timezone });
}

function checked(cadence: { cron: string; timezone: string }): CadenceFound {
  const converted = convertCrontab(cadence.cron);
  if (!converted.ok) return { ok: false, message: `The cadence ${cadence.cron} cannot be scheduled: ${converted.message}.` };
  return { ok: true, value: cadence };
}

type ZoneFound = { ok: true; value: string | null; name: string; rest: string } | { ok: false; message: string };

/** An IANA name (Europe/Paris), UTC/GMT, or a city in "Paris time", "in Paris", "(Paris)". */
function findZone(lower: string): ZoneFound {
  const iana = /\b([a-z]+(?:\/[a-z0-9_+-]+)+)\b/i.exec(lower);
  if (iana) {
    const zone = zonesByCity().get(iana[1].slice(iana[1].lastIndexOf('/') + 1).replace(/_/g, ' '));
    const exact = [...zonesByCity().values()].find((candidate) => candidate.toLowerCase() === iana[1]) ?? zone;
    if (exact && isValidTimeZone(exact)) return { ok: true, value: exact, name: exact, rest: lower.replace(iana[0], ' ') };
    if (/^(?:africa|america|antarctica|asia|atlantic|australia|europe|indian|pacific|etc)\//.test(iana[1])) {
      return { ok: false, message: `${iana[1]} is not a time zone I know: use an IANA name such as Europe/Paris.` };
    }
  }
  const utc = /\b(?:in )?(utc|gmt|zulu)(?: time)?\b/.exec(lower);
  if (utc) return { ok: true, value: 'UTC', name: 'UTC', rest: lower.replace(utc[0], ' ') };
  const cities = [...zonesByCity().keys()].sort((a, b) => b.length - a.length);
  for (const city of cities) {
    const escaped = city.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const phrase = new RegExp(
      `(?:\\b(?:in|at) ${escaped}\\b(?: time)?|\\b${escaped} (?:time|timezone|time zone)\\b|\\(${escaped}\\))`,
    ).exec(lower);
    if (phrase)
      return {
        ok: true,
        value: zonesByCity().get(city)!,
        name: city.replace(/\b\w/g, (c) => c.toUpperCase()),
        rest: lower.replace(phrase[0], ' '),
      };
  }
  return { ok: true, value: null, name: '', rest: lower };
}

/** A literal 5-field crontab ("cron 30 9 * * 1-5", quoted or not) or an @macro. */
function findLiteralCron(lower: string): string | null {
  const macro = /(?:^|\s)(@(?:yearly|annually|monthly|weekly|daily|midnight|hourly))\b/.exec(lower);
  if (macro) return macro[1];
  const field = '[\\d*][\\d*/,-]*|(?:sun|mon|tue|wed|thu|fri|sat|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)(?:[-,][a-z0-9]+)*';
  const five = new RegExp(`(?:^|[\\s"'\`(])((?:${field})(?:\\s+(?:${field})){4})(?=$|[\\s"'\`)])`);
  const match = five.exec(lower);
  if (!match || (!match[1].includes('*') && !/^cron\b|\bcron\s/.test(lower))) return null;
  return match[1].replace(/\s+/g, ' ');
}

type TimeFound = { ok: true; value: { hour: number; minute: number } | null } | { ok: false; message: string };

/** "at 9:30", "09:30", "9am", "9:30 pm", "at 9", "noon", "midnight". */
function findTime(lower: string): TimeFound {
  if (/\bnoon\b|\bmidday\b/.test(lower)) return { ok: true, value: { hour: 12, minute: 0 } };
  if (/\bmidnight\b/.test(lower)) return { ok: true, value: { hour: 0, minute: 0 } };
  const match =
    /\b(\d{1,2})[:.h](\d{2})\s*(am|pm|a\.m\.|p\.m\.)?(?![\d.])/.exec(lower) ??
    /\b(\d{1,2})()\s*(am|pm|a\.m\.|p\.m\.)(?!\w)/.exec(lower) ??
    /\bat (\d{1,2})()()(?![\d:.]|\s*(?:st|nd|rd|th|min|hour))\b/.exec(lower);
  if (!match) return { ok: true, value: null };
  let hour = Number(match[1]);
  const minute = match[2] ? Number(match[2]) : 0;
  const meridiem = match[3]?.replace(/\./g, '');
  if (meridiem) {
    if (hour < 1 || hour > 12) return { ok: false, message: `${match[0].trim()} is not a time of day.` };
    hour = (hour % 12) + (meridiem === 'pm' ? 12 : 0);
  }
  if (hour > 23 || minute > 59) return { ok: false, message: `${match[0].trim()} is not a time of day.` };
  return { ok: true, value: { hour, minute } };
}

/** Days of the week as a crontab field ("1-5", "1,4", "0,6"), or null when none is named. */
function findDays(lower: string): string | null {
  if (/\b(?:weekdays?|working days?|business days?)\b/.test(lower)) return '1-5';
  if (/\bweekends?\b/.test(lower)) return '0,6';
  const range = new RegExp(`\\b${DAY_PATTERN}\\s*(?:-|to|through|thru|until)\\s*${DAY_PATTERN}\\b`).exec(lower);
  if (range) {
    const from = dayIndex(range[1]);
    const to = dayIndex(range[2]);
    return from <= to
      ? formatRuns(Array.from({ length: to - from + 1 }, (_, i) => from + i))
      : formatRuns([...range_(from, 6), ...range_(0, to)].sort((a, b) => a - b));
  }
  const named = new Set<number>();
  for (const match of lower.matchAll(new RegExp(`\\b${DAY_PATTERN}\\b`, 'g'))) named.add(dayIndex(match[1]));
  return named.size > 0 ? formatRuns([...named].sort((a, b) => a - b)) : null;
}

function range_(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

function dayIndex(prefix: string): number {
  return DAY_NAMES.findIndex((name) => name.startsWith(prefix.slice(0, 3)));
}
