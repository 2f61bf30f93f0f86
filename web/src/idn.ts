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

/** `xn--bcher-kva.example` → `bücher.example`; anything else (or invalid punycode) unchanged. */
export function toUnicodeHost(host: string): string {
  if (!/(^|\.)xn--/i.test(host)) return host;
  return host
    .split('.')
    .map((label) => (/^xn--/i.test(label) ? (decodePunycodeLabel(label.slice(4).toLowerCase()) ?? label) : label))
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
