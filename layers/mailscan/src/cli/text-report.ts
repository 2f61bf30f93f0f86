import { renderText as renderKitText } from '../../../engine-kit/src/text-report.ts';
import type { Report } from '../report.ts';
import { optInLines } from './text-opt-in.ts';

/**
 * `--format text`: a summary for a terminal; the JSON report stays the contract. The kit's text
 * (title, checks, findings, errors), as every engine prints it, with what the domain's surfaces
 * read after its checks line.
 */
export function renderText(report: Report): string {
  const [title = '', checks = '', ...rest] = renderKitText({
    ...report,
    findings: report.findings.map((item) => ({ ...item, fingerprint_key: item.fingerprint_key ?? item.rule_id })),
    errors: report.errors.map((error) => ({ check: `${error.surface}/${error.check}`, message: error.message })),
  }).split('\n');
  const posture = report.surfaces.posture;
  const spf = posture.spf;
  const dmarc = posture.dmarc;
  const dkim = posture.dkim;
  const lines = [
    ...(report.domain_exists === false ? [doesNotExist(report), ''] : []),
    ...(report.domain_exists === null ? [`DNS could not be asked: ${String(report.surfaces.posture.reason)}`, ''] : []),
    title,
    checks,
    `posture: ${posture.status}, score ${posture.score ?? 'unknown'}${posture.grade ? ` (grade ${posture.grade})` : ''}`,
    `  SPF    ${spf.status}${spf.record ? `: ${spf.record}` : ''} (${spf.lookups} lookups, ${spf.void_lookups} void)`,
    `  DMARC  ${dmarc.status}${dmarc.record ? `: ${dmarc.record}` : ''}${dmarc.source === 'organizational' ? ' (organizational domain)' : ''}`,
    `  DKIM   ${dkim.status}: ${dkim.keys.length ? dkim.keys.map((key) => `${key.selector} ${key.key_type}${key.bits ? `/${key.bits}` : ''}${key.revoked ? ' revoked' : ''}`).join(', ') : `none of ${dkim.selectors_probed} selectors`}`,
    ...(['reputation', 'discover', 'leak', 'rua', 'header'] as const).map((name) => `${name}: ${report.surfaces[name].status}`),
    ...optInLines(report),
    ...rest,
  ];
  return lines.join('\n');
}

function doesNotExist(report: Report): string {
  const parent = report.nonexistence?.closest_existing_parent;
  const soa = report.nonexistence?.soa;
  const where = parent
    ? `; closest existing parent ${parent}${soa ? ` (zone ${soa.zone}, SOA ${soa.mname} serial ${soa.serial})` : ''}`
    : '';
  return `${report.domain} does not exist (NXDOMAIN)${where}`;
}
