import type { ScanJob } from '../../../shared/domain/scan-job.ts';
import { EmptyState, ErrorState, Loading } from '../components.tsx';
import { bySeverity, FindingCard } from '../finding-card.tsx';
import { useScanFindings } from '../queries.ts';

/**
 * A scan's findings, most severe first. What an empty list means depends on how the scan ended:
 * only a scan that succeeded may show the clean-result message.
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
            <p className="muted">Every check of this scan ran and found nothing to report.</p>
          </EmptyState>
        ) : (
          <p className="muted">
            {job.status === 'failed' ? 'No findings: the scan failed before it could report any.' : 'No findings from the checks that ran.'}
          </p>
        )
      ) : (
        <ul className="findings" aria-label="Findings, most severe first">
          {[...findings.data].sort(bySeverity).map((finding) => (
            <li key={finding.id}>
              <FindingCard finding={finding} showScanLink={false} />
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
