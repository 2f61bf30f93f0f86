/**
 * Internationalised domain names for display: the API stores and matches punycode (`xn--…`), a
 * person reads Unicode. Browsers expose no punycode decoder (the URL parser only encodes), and the
 * decoder is 40 lines of RFC 3492, so it lives here rather than as a dependency;
 * test/web/idn.test.ts holds it to Node's own `url.domainToUnicode`.
 */
const BASE = 36;
const T_MIN = 1;
const T_MAX = 26;
const SKEW = 38;
const DAMP = 700;
const INITIAL_BIAS = 72;
const INITIAL_N = 128;

function adapt(delta: number, points: number, first: boolean): number {
  delta = first ? Math.floor(delta / DAMP) : delta >> 1;
  delta += Math.floor(delta / points);
  let k = 0;
  while (delta > ((BASE - T_MIN) * T_MAX) >> 1) {
    delta = Math.floor(delta / (BASE - T_MIN));
    k += BASE;
  }
  return k + Math.floor(((BASE - T_MIN + 1) * delta) / (delta + SKEW));
}

function digitOf(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 22; // 0-9 → 26-35
  if (code >= 0x41 && code <= 0x5a) return code - 0x41; // A-Z
  if (code >= 0x61 && code <= 0x7a) return code - 0x61; // a-z
  return BASE;
}

/** One punycode label (without `xn--`) decoded, or null when it is not valid punycode. */
export function decodePunycodeLabel(input: string): string | null {
  const output: number[] = [];
  const basicEnd = input.lastIndexOf('-');
  for (let j = 0; j < Math.max(basicEnd, 0); j++) {
    const code = input.charCodeAt(j);
    if (code >= 0x80) return null;
    output.push(code);
  }
  let n = INITIAL_N;
  let i = 0;
  let bias = INITIAL_BIAS;
  for (let index = basicEnd > 0 ? basicEnd + 1 : 0; index < input.length;) {
    const oldI = i;
    for (let w = 1, k = BASE; ; k += BASE) {
      if (index >= input.length) return null;
      const digit = digitOf(input.charCodeAt(index++));
      if (digit >= BASE || digit > Math.floor((0x7fffffff - i) / w)) return null;
      i += digit * w;
      const t = k <= bias ? T_MIN : k >= bias + T_MAX ? T_MAX : k - bias;
      if (digit < t) break;
      if (w > Math.floor(0x7fffffff / (BASE - t))) return null;
      w *= BASE - t;
    }
    const points = output.length + 1;
    bias = adapt(i - oldI, points, oldI === 0);
    if (Math.floor(i / points) > 0x10ffff - n) return null;
    n += Math.floor(i / points);
    i %= points;
    output.splice(i++, 0, n);
  }
  return String.fromCodePoint(...output);
}

/** The scripts a label's letters are told apart by (the others count as one script each by name). */
const SCRIPTS = [
  'Latin',
  'Cyrillic',
  'Greek',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Georgian',
  'Cherokee',
  'Han',
  'Hiragana',
  'Katakana',
  'Hangul',
  'Bopomofo',
  'Thai',
  'Devanagari',
] as const;
const SCRIPT_TESTS = SCRIPTS.map((script) => [script, new RegExp(`^\\p{Script=${script}}$`, 'u')] as const);

/** Mixes of scripts a label may hold (Chrome's IDN policy): Japanese, Chinese and Korean with Latin. */
const ALLOWED_MIXES: readonly (readonly string[])[] = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

/** Cyrillic and Greek letters drawn like Latin ones: a label made only of them reads as a Latin word. */
const LATIN_LOOKALIKES = /^[аАвВсСԁеЕһНіІјЈӏкКмМоОрРԛѕЅтТԝхХуУүҮьЬӀαΑβΒεΕηΗιΙκΚμΜνΝοΟρΡτΤυΥχΧζΖ]+$/u;

function scriptsOf(label: string): Set<string> {
  const scripts = new Set<string>();
  for (const char of label) {
    if (!/\p{L}/u.test(char)) continue;
    scripts.add(SCRIPT_TESTS.find(([, test]) => test.test(char))?.[0] ?? `other:${char}`);
  }
  return scripts;
}

/**
 * Whether a decoded label may be shown in Unicode, as browsers decide (Chrome's IDN display policy,
 * UTS #39): not when it mixes scripts beyond the CJK mixes with Latin (`аpple` with a Cyrillic а),
 * nor when it is a whole-script confusable (`аррӏе`, all Cyrillic letters drawn like Latin ones).
 * Such a label is shown in punycode, so no target looks like another.
 */
export function safeToDisplay(label: string): boolean {
  const scripts = [...scriptsOf(label)];
  if (scripts.length > 1 && !ALLOWED_MIXES.some((mix) => scripts.every((script) => mix.includes(script)))) return false;
  const letters = [...label].filter((char) => /\p{L}/u.test(char)).join('');
  return !(letters !== '' && (scripts[0] === 'Cyrillic' || scripts[0] === 'Greek') && LATIN_LOOKALIKES.test(letters));
}

/**
 * `xn--bcher-kva.example` → `bücher.example`; anything else (invalid punycode, a label mixing
 * scripts or confusable with a Latin one) unchanged.
 */
export function toUnicodeHost(host: string): string {
  if (!/(^|\.)xn--/i.test(host)) return host;
  return host
    .split('.')
    .map((label) => {
      if (!/^xn--/i.test(label)) return label;
      const decoded = decodePunycodeLabel(label.slice(4).toLowerCase());
      return decoded !== null && safeToDisplay(decoded) ? decoded : label;
    })
    .join('.');
}

/**
 * A target as a person reads it. Hosts inside URLs and `user@host` forms are decoded too, so a
 * repository URL on an IDN host reads in Unicode as well; the stored form stays the API's.
 */
export function displayTarget(target: string): string {
  if (!/xn--/i.test(target)) return target;
  return target.replace(
    /(^|[/@.])((?:[a-z0-9-]+\.)*xn--[a-z0-9-]+(?:\.[a-z0-9-]+)*)/gi,
    (_match, lead: string, host: string) => lead + toUnicodeHost(host),
  );
}
