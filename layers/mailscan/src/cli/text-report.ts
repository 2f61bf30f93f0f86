import type { TextLines } from '../../../engine-kit/src/text-report.ts';
import type { Report } from '../report.ts';
import { optInLines } from './text-opt-in.ts';

/**
 * mailscan's lines of `--format text` (the kit's `textLines`): the kit prints the title, the
 * checks, the findings and the errors, as for every engine; mailscan adds what the domain's
 * surfaces read after the checks line, and first whether the domain exists.
 */
export function textLines(report: Record<string, unknown>): TextLines {
  const mail = report as unknown as Report;
  const posture = mail.surfaces.posture;
  const spf = posture.spf;
  const dmarc = posture.dmarc;
  const dkim = posture.dkim;
  return {
    before: [
      ...(mail.domain_exists === false ? [doesNotExist(mail), ''] : []),
      ...(mail.domain_exists === null ? [`DNS could not be asked: ${String(posture.reason)}`, ''] : []),
    ],
    details: [
      `posture: ${posture.status}, score ${posture.score ?? 'unknown'}${posture.grade ? ` (grade ${posture.grade})` : ''}`,
      `  SPF    ${spf.status}${spf.record ? `: ${spf.record}` : ''} (${spf.lookups} lookups, ${spf.void_lookups} void)`,
      `  DMARC  ${dmarc.status}${dmarc.record ? `: ${dmarc.record}` : ''}${dmarc.source === 'organizational' ? ' (organizational domain)' : ''}`,
      `  DKIM   ${dkim.status}: ${dkim.keys.length ? dkim.keys.map((key) => `${key.selector} ${key.key_type}${key.bits ? `/${key.bits}` : ''}${key.revoked ? ' revoked' : ''}`).join(', ') : `none of ${dkim.selectors_probed} selectors`}`,
      ...(['reputation', 'discover', 'leak', 'rua', 'header'] as const).map((name) => `${name}: ${mail.surfaces[name].status}`),
      ...optInLines(mail),
    ],
  };
}

function doesNotExist(report: Report): string {
  const parent = report.nonexistence?.closest_existing_parent;
  const soa = report.nonexistence?.soa;
  const where = parent
    ? `; closest existing parent ${parent}${soa ? ` (zone ${soa.zone}, SOA ${soa.mname} serial ${soa.serial})` : ''}`
    : '';
  return `${report.domain} does not exist (NXDOMAIN)${where}`;
}
