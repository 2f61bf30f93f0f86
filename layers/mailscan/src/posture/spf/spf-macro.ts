/**
 * The one macro a scan can expand (RFC 7208 §7): `%{d}`, the domain being checked, with its
 * transformers (`%{d2}`, `%{dr}`, delimiters) and the escapes `%%`, `%_`, `%-`. The other letters
 * need the message (sender, IP, HELO), which a scan does not have: such a spec stays unexpanded.
 */
const MACRO = /%\{([a-z])(\d*)(r?)([.\-+,/_=]*)\}|%%|%_|%-/gi;

/** The expanded domain, or null when the spec uses a macro that needs the message. */
export function expandDomainMacros(spec: string, domain: string): string | null {
  let unexpandable = false;
  const expanded = spec.replace(MACRO, (whole, letter: string | undefined, digits: string, reverse: string, delimiters: string) => {
    if (whole === '%%') return '%';
    if (whole === '%_') return ' ';
    if (whole === '%-') return '%20';
    if (letter?.toLowerCase() !== 'd') {
      unexpandable = true;
      return whole;
    }
    return transform(domain, digits, reverse !== '', delimiters);
  });
  if (unexpandable || expanded.includes('%')) return null;
  return truncate(expanded.replace(/\.$/, '').toLowerCase());
}

/** §7.3: split on the delimiters (default "."), optionally reverse, keep the rightmost N parts, join with ".". */
function transform(value: string, digits: string, reverse: boolean, delimiters: string): string {
  const split = new RegExp(`[${(delimiters || '.').replace(/[-\\\]^]/g, '\\$&')}]`);
  let parts = value.split(split);
  if (reverse) parts = parts.reverse();
  const keep = digits === '' ? parts.length : Number(digits);
  return parts.slice(Math.max(0, parts.length - keep)).join('.');
}

/** §7.3: a result longer than 253 characters loses labels from the left until it fits. */
function truncate(name: string): string {
  let result = name;
  while (result.length > 253 && result.includes('.')) result = result.slice(result.indexOf('.') + 1);
  return result;
}
