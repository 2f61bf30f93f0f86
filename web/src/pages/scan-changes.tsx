import { useState } from 'react';
import type { Issue } from '../../../shared/domain/issue.ts';
import { CHECK_STATUSES, type CheckStatus } from '../../../lib/check-status.ts';
import type { ComponentChanges, ScanCheck, ScanJob } from '../../../shared/domain/scan-job.ts';
import { CHECK_STATUS_TEXT, CheckStatusBadge, ErrorState, IssueStatusBadge, Loading, SeverityBadge } from '../components.tsx';
import { displayTarget } from '../idn.ts';
import { useScanChanges } from '../queries.ts';
import { Link } from '../router.tsx';
import { titleWithSubject } from '../../../shared/domain/issue-title.ts';

const CHANGE_TEXT = { new: 'New', resolved: 'Resolved', reopened: 'Reopened', unchanged: 'Unchanged' } as const;
const LISTED = ['new', 'reopened', 'resolved'] as const;

/**
 * What a finished scan did to the tenant's issues (GET /api/scans/{id}/changes/): the counts, then
 * the issues behind new, reopened and resolved. The counts are exact; the listed ids may not be all
 * of them, and the page says so when they are not.
 */
export function WhatChanged({ job }: { job: ScanJob }) {
  const finished = job.status !== 'queued' && job.status !== 'running';
  const changes = useScanChanges(job.id, finished && job.changes !== null);
  return (
    <section aria-labelledby="changes-title">
      <h2 id="changes-title" className="section-title">
        What changed
      </h2>
      {!finished ? (
        <p className="muted">What changed appears when the scan has finished.</p>
      ) : job.changes === null ? (
        <p className="muted">
          This scan recorded no changes to issues
          {job.status === 'failed' ? ': it failed before it could compare anything.' : ' (it finished before issues were tracked).'}
        </p>
      ) : (
        <>
          <ul className="change-counts" aria-label="Changes by kind">
            {(['new', 'resolved', 'reopened', 'unchanged'] as const).map((kind) => (
              <li key={kind} className={`change-count change-${kind}`}>
                <span className="change-number">{job.changes![kind]}</span> {CHANGE_TEXT[kind]}
              </li>
            ))}
          </ul>
          {job.changes.components && <ComponentChangeList components={job.changes.components} />}
          {job.status !== 'succeeded' && (
            <p className="hint">
              A check that did not complete resolves nothing: issues of the checks this scan could not run stay as they were.
            </p>
          )}
          {changes.isPending ? (
            <Loading label="Loading the changed issues…" />
          ) : changes.isError ? (
            <ErrorState error={changes.error} retry={() => void changes.refetch()} />
          ) : (
            <>
              {LISTED.map((kind) => (
                <ChangeGroup
                  key={kind}
                  kind={kind}
                  count={job.changes![kind]}
                  items={changes.data.items.filter((item) => item.change === kind).map((item) => item.issue)}
                />
              ))}
              {changes.data.items.length > 0 && !changes.data.truncated && (
                <p>
                  <Link to={`/issues?target=${encodeURIComponent(job.target)}&status=any`}>Every issue of {job.target}</Link>
                </p>
              )}
              {changes.data.truncated && (
                <p className="notice notice-warning">
                  Not every changed issue is listed: a scan keeps the ids of the first 3,000. The counts above are exact; see{' '}
                  <Link to={`/issues?target=${encodeURIComponent(job.target)}&status=any`}>the issues of {job.target}</Link> for the rest.
                </p>
              )}
            </>
          )}
        </>
      )}
    </section>
  );
}

/**
 * The components added and removed since the target's previous inventory (DESIGN §15, §18). A first
 * inventory says so instead of listing every component as added.
 */
function ComponentChangeList({ components }: { components: ComponentChanges }) {
  if (components.since_scan_id === null)
    return (
      <p className="component-changes">
        First inventory of this target: {components.count.toLocaleString()} component{components.count === 1 ? '' : 's'}. Later scans list
        the components added and removed since this one.
      </p>
    );
  return (
    <div className="component-changes">
      <h3 id="changes-components">
        Components since <Link to={`/scans/${components.since_scan_id}`}>the previous inventory</Link>: {components.added_count} added,{' '}
        {components.removed_count} removed
      </h3>
      {(['added', 'removed'] as const).map(
        (kind) =>
          components[kind].length > 0 && (
            <div key={kind}>
              <h4 id={`components-${kind}`}>{kind === 'added' ? 'Added' : 'Removed'}</h4>
              <ul className="change-list" aria-labelledby={`components-${kind}`}>
                {components[kind].map((purl) => (
                  <li key={purl} className="mono">
                    {purl}
                  </li>
                ))}
              </ul>
            </div>
          ),
      )}
      {components.truncated && (
        <p className="notice notice-warning">Not every component is listed: a scan keeps the first 500 of each kind.</p>
      )}
    </div>
  );
}

/** Issues a group shows before "Show all": a first scan of a big target opens hundreds. */
const SHOWN = 20;

function ChangeGroup({ kind, count, items }: { kind: (typeof LISTED)[number]; count: number; items: Issue[] }) {
  const [all, setAll] = useState(false);
  if (items.length === 0) return null;
  const shown = all ? items : items.slice(0, SHOWN);
  return (
    <div className="change-group">
      <h3 id={`changes-${kind}`}>
        {CHANGE_TEXT[kind]} ({items.length < count ? `${items.length} of ${count} listed` : count})
      </h3>
      <ul className="change-list" aria-labelledby={`changes-${kind}`}>
        {shown.map((issue) => (
          <li key={issue.id}>
            <SeverityBadge severity={issue.severity} /> <Link to={`/issues/${issue.id}`}>{titleWithSubject(issue)}</Link>{' '}
            <span className="muted">
              <code>{issue.rule_id}</code> · <span className="mono">{displayTarget(issue.target)}</span>
            </span>{' '}
            {issue.status !== (kind === 'resolved' ? 'resolved' : 'open') && (
              <>
                · now <IssueStatusBadge status={issue.status} />
              </>
            )}
          </li>
        ))}
      </ul>
      {shown.length < items.length && (
        <button type="button" className="button button-secondary button-small show-more-changes" onClick={() => setAll(true)}>
          Show all {items.length} {CHANGE_TEXT[kind].toLowerCase()}
        </button>
      )}
    </div>
  );
}

/** Rows the checks table shows before "Show all": errors and failures come first, so they show. */
const CHECKS_SHOWN = 50;

/** Problems first: an error or a failure is what a reader looks for. */
const CHECK_ORDER: Record<CheckStatus, number> = { error: 0, fail: 1, skipped: 2, pass: 3 };

/**
 * Every check the scan ran or skipped, one per catalogue rule and target, with its status as the
 * engine reported it: an errored check reads Error, never Pass.
 */
export function ScanChecks({ job }: { job: ScanJob }) {
  const [all, setAll] = useState(false);
  const finished = job.status !== 'queued' && job.status !== 'running';
  const checks = [...job.checks].sort(
    (a, b) => CHECK_ORDER[a.status] - CHECK_ORDER[b.status] || a.target.localeCompare(b.target) || a.id.localeCompare(b.id),
  );
  const targets = new Set(job.checks.map((check) => check.target));
  const counts = CHECK_STATUSES.map((status) => [status, job.checks.filter((check) => check.status === status).length] as const).filter(
    ([, count]) => count > 0,
  );
  return (
    <section aria-labelledby="checks-title">
      <h2 id="checks-title" className="section-title">
        Checks{job.checks.length > 0 ? ` (${job.checks.length})` : ''}
      </h2>
      {!finished ? (
        <p className="muted">Checks appear when the scan has finished.</p>
      ) : checks.length === 0 ? (
        <p className="muted">
          {job.status === 'failed'
            ? 'No checks: the scan failed before reporting any.'
            : 'This scan reported no checks, so it cannot resolve any issue (its scanner does not report them).'}
        </p>
      ) : (
        <>
          <p className="muted">{counts.map(([status, count]) => `${count} ${CHECK_STATUS_TEXT[status].toLowerCase()}`).join(' · ')}</p>
          <div className="table-wrap">
            <table className="table checks-table">
              <caption className="visually-hidden">Checks, errors and failures first</caption>
              <thead>
                <tr>
                  <th scope="col">Check</th>
                  <th scope="col">Result</th>
                  {targets.size > 1 && <th scope="col">Target</th>}
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {(all ? checks : checks.slice(0, CHECKS_SHOWN)).map((check) => (
                  <CheckRow key={`${check.target}\n${check.id}`} check={check} showTarget={targets.size > 1} />
                ))}
              </tbody>
            </table>
          </div>
          {!all && checks.length > CHECKS_SHOWN && (
            <button type="button" className="button button-secondary button-small show-more-changes" onClick={() => setAll(true)}>
              Show all {checks.length.toLocaleString()} checks
            </button>
          )}
        </>
      )}
    </section>
  );
}

function CheckRow({ check, showTarget }: { check: ScanCheck; showTarget: boolean }) {
  return (
    <tr>
      <th scope="row" className="cell-name">
        {check.title}
        <span className="cell-sub mono">{check.id}</span>
      </th>
      <td data-label="Result">
        <CheckStatusBadge status={check.status} />
      </td>
      {showTarget && (
        <td data-label="Target" className="cell-target">
          <span className="mono">{displayTarget(check.target)}</span>
        </td>
      )}
      <td data-label="Detail">{check.detail || <span className="muted">—</span>}</td>
    </tr>
  );
}
