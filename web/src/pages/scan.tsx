import { SCAN_TYPES, scanTypes, type ScanType } from '../../../shared/domain/scan-types.ts';
import { SEVERITIES } from '../../../lib/severity.ts';
import type { ScanError, ScanJob } from '../../../shared/domain/scan-job.ts';
import { ApiError } from '../api.ts';
import { formatLocal } from '../cadence.ts';
import { Breadcrumb, ErrorState, Loading, NotFoundPage, SeverityBadge, StatusBadge, type Parent } from '../components.tsx';
import { useScan } from '../queries.ts';
import { Link } from '../router.tsx';
import { ScanLog } from './scan-log.tsx';
import { ScanChecks, WhatChanged } from './scan-changes.tsx';
import { ScanFindings } from './scan-findings.tsx';
import { TargetPosture } from './target-posture.tsx';
import { ScopeSummary } from '../scope-form.tsx';
import { failureGroups, failureLine } from '../failure-groups.ts';
import { displayTarget } from '../idn.ts';

const SCANS: Parent = { to: '/scans', label: 'Scans' };

/** One scan: status and errors first (refreshing while queued or running), summary, what changed, findings by severity, checks, log. */
export function ScanPage({ id }: { id: string }) {
  const scan = useScan(id);
  if (scan.isPending) return <Loading label="Loading the scan…" />;
  if (scan.isError) {
    if (scan.error instanceof ApiError && scan.error.status === 404) return <ScanNotFound id={id} />;
    return <ErrorState error={scan.error} retry={() => void scan.refetch()} />;
  }
  const job = scan.data;
  return (
    <section className="page">
      <Breadcrumb parent={SCANS}>{job.id}</Breadcrumb>
      <div className="page-head">
        <h1>
          {scanTypes[job.scan_type].label} scan of <span className="mono">{job.target}</span>
        </h1>
        <div role="status" aria-live="polite" aria-label="Scan status">
          <StatusBadge status={job.status} />
        </div>
      </div>
      <Outcome job={job} />
      <dl className="facts">
        <div>
          <dt>Created</dt>
          <dd>{formatLocal(job.created_at)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatLocal(job.started_at)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{formatLocal(job.finished_at)}</dd>
        </div>
        <div>
          <dt>Options</dt>
          <dd>
            <ScopeSummary scope={job.scope} scanType={job.scan_type} />
          </dd>
        </div>
        <div>
          <dt>Started by</dt>
          <dd>
            {job.schedule_id ? (
              <Link to={`/settings/scheduled-scans/${job.schedule_id}`}>{job.trigger === 'cron' ? 'Schedule' : 'Run now'}</Link>
            ) : (
              'Manual'
            )}
          </dd>
        </div>
        <Inventory job={job} />
      </dl>
      <Summary job={job} />
      <TargetPosture job={job} />
      <WhatChanged job={job} />
      <ScanFindings job={job} />
      <ScanChecks job={job} />
      <ScanLog job={job} />
    </section>
  );
}

/** An sbom scan's component count and its SBOM to download (the session cookie authenticates the link). */
function Inventory({ job }: { job: ScanJob }) {
  const sbom = job.outputs?.find((output) => output.purpose === 'sbom');
  if (!sbom) return null;
  const count = job.changes?.components?.count;
  return (
    <div>
      <dt>Components</dt>
      <dd>
        {count !== undefined && <span className="component-count">{count.toLocaleString()}</span>}
        {count !== undefined && ' · '}
        <a href={`/api/scans/${job.id}/sbom/`} download={`${job.id}.cdx.json`}>
          Download the SBOM (CycloneDX 1.6 JSON, {Math.max(1, Math.round(sbom.size / 1024)).toLocaleString()} KB)
        </a>
      </dd>
    </div>
  );
}

function ScanNotFound({ id }: { id: string }) {
  return (
    <NotFoundPage id={id} parent={SCANS} title="Scan not found">
      <p>
        There is no scan <code>{id}</code> in this tenant. It may have been mistyped, or it belongs to another tenant.
      </p>
      <p>
        <Link to="/scans">See this tenant's scans</Link>
      </p>
    </NotFoundPage>
  );
}

/** Who reported an error, in words: the dispatcher, a scan type's scanner, or a named runner. */
function sourceOf(error: ScanError): string {
  if (error.runner === 'dispatch') return 'Dispatch';
  if ((SCAN_TYPES as readonly string[]).includes(error.runner)) return `${scanTypes[error.runner as ScanType].label} scanner`;
  return `The ${error.runner} scanner`;
}

const OUTCOME_TEXT = {
  failed: {
    title: 'This scan failed',
    body: 'It did not finish, so it says nothing about the target: no findings below does not mean a clean result.',
  },
  partial: {
    title: 'This scan finished partially',
    body: 'Some checks did not run. The findings below come from the checks that did; what is missing is not a clean result.',
  },
} as const;

function messagesLabel(count: number, shown: number): string {
  if (count === 1) return 'As the scanner wrote it:';
  return count > shown
    ? `As the scanner wrote it (${count} messages, the first ${shown}):`
    : `As the scanner wrote it (${count} messages):`;
}

/** How many targets a group's details list before "and N more". */
const TARGETS_SHOWN = 20;

/**
 * A failed or partial scan leads with that, and with why in one line per cause, grouped by
 * target ("59 of 60 targets refused the connection"); the scanners' own messages, the targets and
 * the checks each cause stopped are in its collapsed details (web/src/failure-groups.ts).
 */
function Outcome({ job }: { job: ScanJob }) {
  if (job.status !== 'failed' && job.status !== 'partial' && job.errors.length === 0) return null;
  const text = job.status === 'failed' || job.status === 'partial' ? OUTCOME_TEXT[job.status] : null;
  const groups = failureGroups(job);
  const targetCount = 1 + job.targets.length;
  // In a sentence: "Reported by Dispatch, the scripted scanner."
  const sources = [...new Set(job.errors.map((error) => sourceOf(error).replace(/^The /, 'the ')))];
  return (
    <section className={`card ${job.status === 'failed' ? 'card-danger' : 'card-warning'} outcome`} aria-labelledby="outcome-title">
      <h2 id="outcome-title" className="section-title">
        {text?.title ?? 'Errors'}
      </h2>
      {text && <p>{text.body}</p>}
      {groups.length > 0 ? (
        <ul className="failure-groups" aria-label="Why">
          {groups.map((group) => (
            <li key={group.cause}>
              <details>
                <summary>{failureLine(group, targetCount, displayTarget)}</summary>
                <div className="failure-details">
                  {group.targets.length > 1 && (
                    <p>
                      <span className="muted">Targets: </span>
                      <span className="mono">{group.targets.slice(0, TARGETS_SHOWN).map(displayTarget).join(', ')}</span>
                      {group.targets.length > TARGETS_SHOWN && ` and ${group.targets.length - TARGETS_SHOWN} more`}
                    </p>
                  )}
                  {group.checks.length > 0 && (
                    <p>
                      <span className="muted">
                        {group.checks.length === 1 ? 'Check' : `${group.checks.length} checks`} left without a result:{' '}
                      </span>
                      <span className="mono">{group.checks.join(', ')}</span>
                    </p>
                  )}
                  <p className="muted">{messagesLabel(group.messageCount, group.messages.length)}</p>
                  <ul className="errors">
                    {group.messages.map((message) => (
                      <li key={message} className="mono">
                        {message}
                      </li>
                    ))}
                  </ul>
                </div>
              </details>
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted">The scan recorded no error message.</p>
      )}
      {sources.length > 0 && <p className="muted">Reported by {sources.join(', ')}.</p>}
    </section>
  );
}

const GRADE_BAND: Record<string, string> = { A: 'good', B: 'good', C: 'fair', D: 'poor', F: 'bad' };

function Summary({ job }: { job: ScanJob }) {
  const { summary } = job;
  return (
    <section className="summary" aria-label="Summary">
      {summary.grade !== undefined && (
        // The score and grade rate the domain's mail posture (SPF, DKIM, DMARC; SPEC §2.5), not the
        // findings below, which may be high while the posture is an A: the label says which.
        <div className={`score score-${GRADE_BAND[summary.grade] ?? 'fair'}`}>
          <span className="score-grade" aria-label={`Mail posture grade ${summary.grade}`}>
            {summary.grade}
          </span>
          {summary.score !== undefined && <span className="score-value">Mail posture {summary.score}/100</span>}
        </div>
      )}
      <ul className="counts">
        {SEVERITIES.map((severity) => (
          <li key={severity}>
            <SeverityBadge severity={severity} /> <span className="count">{summary[severity]}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
