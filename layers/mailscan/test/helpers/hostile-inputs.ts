/**
 * Hostile inputs shared by the tests and bench/hostile-inputs.ts (issue 19): each within every
 * documented bound, each once costly.
 */
import { RUA_LIMITS } from '../../../../lib/mail-artifacts/rua-limits.ts';
import { generateReport } from './rua-reports.ts';

/** `amplify.test`: `includes` includes of `terms` `a:` terms each (99 × 1,000 sent ~200,000 queries). */
export function amplificationZone(includes = 99, terms = 1_000): string {
  const txt = (list: string[]) => {
    const text = `v=spf1 ${list.join(' ')} -all`;
    return (text.match(/.{1,250}/g) ?? []).map((part) => `"${part}"`).join(' ');
  };
  const lines = ['$ORIGIN amplify.test.', '$TTL 300', '@ IN SOA ns hostmaster ( 1 3600 600 86400 300 )', '@ IN NS ns', 'ns IN A 127.0.0.1'];
  lines.push(`@ IN TXT ${txt(Array.from({ length: includes }, (_, i) => `include:i${i}.amplify.test`))}`);
  for (let i = 0; i < includes; i += 1)
    lines.push(`i${i} IN TXT ${txt(Array.from({ length: terms }, (_, j) => `a:h${j}.i${i}.amplify.test`))}`);
  return lines.join('\n');
}

/** The largest aggregate report the bounds admit: the record bound, every record from its own IP. */
export function largestAggregateReport(domain = 'good.test'): string {
  return generateReport({ domain, records: RUA_LIMITS.maxRecordsPerReport, ips: RUA_LIMITS.maxRecordsPerReport });
}
