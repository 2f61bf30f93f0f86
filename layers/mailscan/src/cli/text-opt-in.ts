import type { Report } from '../report.ts';

/** The parts of the discover and leak report sections the text format shows (the JSON report is the contract). */
interface Status {
  status?: string;
  reason?: string;
}
interface DiscoverView extends Status {
  candidates?: { address: string; sources: string[]; rcpt: string }[];
  patterns?: string[];
  smtp?: Status & { mx?: string; address?: string; catch_all?: boolean | null };
  emailrep?: Status;
}
interface LeakView extends Status {
  breach?: Status & { breaches?: number; keyed?: boolean };
  codesearch?: Status & { files?: number };
  lookalikes?: {
    candidates?: number;
    registered?: number;
    unknown?: number;
    with_certificates?: number;
    queries?: number;
    registered_domains?: { domain: string; unicode?: string; family: string; a: string[]; mx: string[]; certificates: number }[];
  };
  certstream?: Status & { certificates?: number; seconds?: number; matches?: unknown[] };
  feeds?: Record<string, Status & { sources?: number }>;
}

const outcome = (item: Status | undefined, ok: string): string =>
  item?.status === 'ok' ? ok : `${item?.status ?? 'n/a'}${item?.reason ? ` (${item.reason})` : ''}`;

/** `--format text` lines for the discover and leak surfaces, when they ran. */
export function optInLines(report: Report): string[] {
  const lines: string[] = [];
  if (report.techniques?.length) lines.push(`adversary techniques: ${report.techniques.join(', ')}`);
  const discover = report.surfaces.discover as unknown as DiscoverView;
  if (discover.status !== 'skipped') {
    const candidates = discover.candidates ?? [];
    const smtp = discover.smtp ?? {};
    const count = (state: string): number => candidates.filter((candidate) => candidate.rcpt === state).length;
    const catchAll = smtp.catch_all === true ? 'yes' : smtp.catch_all === false ? 'no' : 'unknown';
    lines.push(`discover (${discover.status}):`);
    lines.push(
      `  candidates: ${candidates.length} (${['ct', 'soa', 'dmarc', 'pattern', 'role'].map((source) => `${source} ${candidates.filter((candidate) => candidate.sources.includes(source)).length}`).join(', ')})${discover.patterns?.length ? `; learned patterns ${discover.patterns.join(', ')}` : ''}`,
    );
    lines.push(
      `  SMTP ${smtp.status ?? 'n/a'}${smtp.mx ? ` via ${smtp.mx} [${smtp.address}]` : ''}: catch-all ${catchAll}; accepted ${count('accepted')}, rejected ${count('rejected')}, unknown ${count('unknown')}, unverifiable ${count('unverifiable')}, not probed ${count('not_probed')}`,
    );
    for (const candidate of candidates.filter((item) => item.rcpt === 'accepted' || item.sources.some((source) => source !== 'role'))) {
      lines.push(`    ${candidate.address.padEnd(36)} ${candidate.rcpt.padEnd(12)} ${candidate.sources.join('+')}`);
    }
    lines.push(`  address reputation: ${outcome(discover.emailrep, 'ok')}`);
  }
  const leak = report.surfaces.leak as unknown as LeakView;
  if (leak.status !== 'skipped') {
    const lookalikes = leak.lookalikes ?? {};
    lines.push(`leak (${leak.status}):`);
    lines.push(
      `  breach database: ${outcome(leak.breach, `${leak.breach?.breaches ?? 0} breach(es)${leak.breach?.keyed ? '' : ' (the domain site only: no key)'}`)}`,
    );
    lines.push(`  code search: ${outcome(leak.codesearch, `${leak.codesearch?.files ?? 0} file(s)`)}`);
    lines.push(
      `  lookalikes: ${lookalikes.candidates ?? 0} candidates, ${lookalikes.registered ?? 0} registered, ${lookalikes.unknown ?? 0} unknown, ${lookalikes.with_certificates ?? 0} with certificates (${lookalikes.queries ?? 0} DNS queries)`,
    );
    for (const item of lookalikes.registered_domains ?? []) {
      lines.push(
        `    ${(item.unicode ? `${item.domain} (${item.unicode})` : item.domain).padEnd(36)} ${item.family.padEnd(14)} A ${item.a.join(',') || '-'}  MX ${item.mx.join(',') || '-'}  certificates ${item.certificates}`,
      );
    }
    lines.push(
      `  certificate stream: ${outcome(leak.certstream, `${leak.certstream?.certificates ?? 0} certificates in ${leak.certstream?.seconds ?? 0} s, ${leak.certstream?.matches?.length ?? 0} match(es)`)}`,
    );
    for (const [feed, data] of Object.entries(leak.feeds ?? {}))
      lines.push(`  ${feed}: ${outcome(data, `${data.sources ?? 0} source(s)`)}`);
  }
  return lines;
}
