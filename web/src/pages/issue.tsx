import { scanTypes } from '../../../shared/domain/scan-types.ts';
import { ApiError } from '../api.ts';
import { formatLocal } from '../cadence.ts';
import { Actor, Breadcrumb, ErrorState, IssueStatusBadge, Loading, NotFoundPage, SeverityBadge, type Parent } from '../components.tsx';
import { Evidence } from '../finding-card.tsx';
import { displayTarget } from '../idn.ts';
import { Assignee, Comments, History } from '../issue-activity.tsx';
import { useTriageControls } from '../issue-triage.tsx';
import { useIssue } from '../queries.ts';
import { Link } from '../router.tsx';
import { useCan } from '../session.ts';
import { titleWithSubject } from '../../../shared/domain/issue-title.ts';

const ISSUES: Parent = { to: '/issues', label: 'Issues' };

/** One issue: what it is, its status and who set it, the actions, and its newest sightings with links to their scans. */
export function IssuePage({ id }: { id: string }) {
  const issue = useIssue(id);
  const canTriage = useCan('operator');
  const triage = useTriageControls();
  if (issue.isPending) return <Loading label="Loading the issue…" />;
  if (issue.isError) {
    if (issue.error instanceof ApiError && issue.error.status === 404)
      return (
        <NotFoundPage id={id} parent={ISSUES} title="Issue not found">
          <p>
            There is no issue <code>{id}</code> in this tenant.
          </p>
        </NotFoundPage>
      );
    return <ErrorState error={issue.error} retry={() => void issue.refetch()} />;
  }
  const data = issue.data;
  const latest = data.occurrences[0];
  return (
    <section className="page">
      <Breadcrumb parent={ISSUES}>{data.id}</Breadcrumb>
      <div className="page-head">
        <h1>{titleWithSubject(data)}</h1>
        <div role="status" aria-live="polite" aria-label="Issue status">
          <IssueStatusBadge status={data.status} />
        </div>
      </div>
      <p className="finding-meta issue-meta">
        <SeverityBadge severity={data.severity} /> <code>{data.rule_id}</code> · {scanTypes[data.scan_type].label} ·{' '}
        <span className="mono" title={data.target}>
          {displayTarget(data.target)}
        </span>
      </p>
      {triage.view}
      {canTriage && (
        <div className="triage-actions" role="group" aria-label="Actions">
          {triage.actions(data)}
        </div>
      )}
      <dl className="facts">
        <div>
          <dt>First seen</dt>
          <dd>{formatLocal(data.first_seen_at)}</dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>
            {formatLocal(data.last_seen_at)} (<Link to={`/scans/${data.last_scan_id}`}>scan</Link>)
          </dd>
        </div>
        {data.schedule_id && (
          <div>
            <dt>Reported by</dt>
            <dd>
              <Link to={`/settings/scheduled-scans/${data.schedule_id}`}>its schedule's runs</Link>
            </dd>
          </div>
        )}
        <div>
          <dt>Seen</dt>
          <dd>
            {data.occurrence_count} {data.occurrence_count === 1 ? 'time' : 'times'}
            {data.reopened_count > 0 ? `, reopened ${data.reopened_count}×` : ''}
          </dd>
        </div>
        {data.status === 'resolved' && (
          <div>
            <dt>Resolved</dt>
            <dd>
              {formatLocal(data.resolved_at)}
              {data.resolved_scan_id && (
                <>
                  {' '}
                  (<Link to={`/scans/${data.resolved_scan_id}`}>scan</Link>)
                </>
              )}
            </dd>
          </div>
        )}
        {data.status_changed_at && (
          <div>
            <dt>Status set</dt>
            <dd>
              {formatLocal(data.status_changed_at)}
              {data.status_changed_by && (
                <>
                  {' '}
                  by <Actor by={data.status_changed_by} />
                </>
              )}
            </dd>
          </div>
        )}
        <div>
          <dt>Due</dt>
          <dd>
            {data.due_at ? (
              <>
                <time dateTime={data.due_at}>{formatLocal(data.due_at)}</time>
                {data.overdue && (
                  <>
                    {' '}
                    <span className="badge badge-overdue">Overdue</span>
                  </>
                )}
              </>
            ) : (
              <span className="muted">
                No due date (<Link to="/settings/sla">the SLA</Link> sets none for {data.severity})
              </span>
            )}
          </dd>
        </div>
        {data.status === 'accepted_risk' && (
          <div>
            <dt>Accepted until</dt>
            <dd>{data.status_until ? formatLocal(data.status_until) : 'someone reopens it'}</dd>
          </div>
        )}
      </dl>
      {data.status_reason && (data.status === 'accepted_risk' || data.status === 'false_positive') && (
        <section className="card" aria-labelledby="reason-title">
          <h2 id="reason-title" className="section-title">
            Reason
          </h2>
          <p className="pre-line">{data.status_reason}</p>
        </section>
      )}
      <Assignee issue={data} canEdit={canTriage} />
      {latest && (
        <section aria-labelledby="about-title">
          <h2 id="about-title" className="section-title">
            About
          </h2>
          {latest.description && <p>{latest.description}</p>}
          <h3>Remediation</h3>
          <p>{latest.remediation}</p>
        </section>
      )}
      <Comments issueId={data.id} comments={data.comments} canEdit={canTriage} />
      <History history={data.history} />
      <section aria-labelledby="occurrences-title">
        <h2 id="occurrences-title" className="section-title">
          Occurrences
        </h2>
        {data.occurrences.length === 0 ? (
          <p className="muted">No sighting is stored for this issue.</p>
        ) : (
          <>
            <p className="muted">
              {data.occurrences.length < data.occurrence_count
                ? `The newest ${data.occurrences.length} of ${data.occurrence_count} sightings, newest first.`
                : 'Every sighting, newest first.'}
            </p>
            <ol className="occurrences" aria-label="Occurrences, newest first">
              {data.occurrences.map((occurrence) => (
                <li key={occurrence.finding_id} className="occurrence">
                  <p className="occurrence-head">
                    <SeverityBadge severity={occurrence.severity} /> Seen {formatLocal(occurrence.seen_at)} ·{' '}
                    <Link to={`/scans/${occurrence.scan_id}`}>Open the scan</Link>
                  </p>
                  <details>
                    <summary>Show evidence</summary>
                    <Evidence
                      finding={{ id: occurrence.finding_id, title: occurrence.title, evidence: occurrence.evidence, rule_id: data.rule_id }}
                    />
                  </details>
                </li>
              ))}
            </ol>
          </>
        )}
      </section>
    </section>
  );
}
