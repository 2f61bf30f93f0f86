import { useMemo, useState } from 'react';
import type { Finding } from '../../../shared/domain/finding.ts';
import type { ScanJob } from '../../../shared/domain/scan-job.ts';
import { EmptyState, ErrorState, Loading } from '../components.tsx';
import { bySeverity, FindingCard } from '../finding-card.tsx';
import { useScanFindings } from '../queries.ts';

/**
 * What an empty list of a succeeded scan says: "every check ran" only when the scanner listed its
 * checks and none of them errored; otherwise no more than what is known.
 */
function emptyResult(checks: ScanJob['checks']): string {
  if (checks.length === 0)
    return 'The scanner reported nothing. It does not list the checks it ran, so this is not a list of checks passed.';
  if (checks.some((check) => check.status === 'error'))
    return 'Nothing found by the checks that completed; some checks ended in an error (see Checks).';
  return 'Every check of this scan ran and found nothing to report.';
}

/**
 * A scan's findings, most severe first. What an empty list means depends on how the scan ended:
 * only a scan that succeeded may show the clean-result message, and only as far as its checks say.
 */
export function ScanFindings({ job }: { job: ScanJob }) {
  const finished = job.status !== 'queued' && job.status !== 'running';
  const findings = useScanFindings(job.id, finished);
  return (
    <section aria-labelledby="findings-title">
      <h2 id="findings-title" className="section-title">
        Findings{finished && findings.data ? ` (${findings.data.length})` : ''}
      </h2>
      {!finished ? (
        <p className="muted">Findings appear when the scan has finished.</p>
      ) : findings.isPending ? (
        <Loading label="Loading findings…" />
      ) : findings.isError ? (
        <ErrorState error={findings.error} retry={() => void findings.refetch()} />
      ) : findings.data.length === 0 ? (
        job.status === 'succeeded' ? (
          <EmptyState title="No findings">
            <p className="muted">{emptyResult(job.checks)}</p>
          </EmptyState>
        ) : (
          <p className="muted">
            {job.status === 'failed' ? 'No findings: the scan failed before it could report any.' : 'No findings from the checks that ran.'}
          </p>
        )
      ) : (
        <SortedFindings findings={findings.data} />
      )}
    </section>
  );
}

/** Cards drawn at first and per "Show more": a scan of a network can report thousands, and each card is heavy. */
const CARDS = 50;

/** Every finding, most severe first, drawn CARDS at a time. */
function SortedFindings({ findings }: { findings: Finding[] }) {
  const sorted = useMemo(() => [...findings].sort(bySeverity), [findings]);
  const [shown, setShown] = useState(CARDS);
  const more = Math.min(CARDS, sorted.length - shown);
  return (
    <>
      <ul className="findings" aria-label="Findings, most severe first">
        {sorted.slice(0, shown).map((finding) => (
          <li key={finding.id}>
            <FindingCard finding={finding} showScanLink={false} />
          </li>
        ))}
      </ul>
      {more > 0 && (
        <p className="show-more-findings">
          <span className="muted">
            {shown} of {sorted.length} shown.
          </span>{' '}
          <button type="button" className="button button-secondary" onClick={() => setShown(shown + CARDS)}>
            Show {more} more findings
          </button>
        </p>
      )}
    </>
  );
}
