import { useEffect, useRef, useState } from 'react';
import { ISSUE_STATUSES } from '../../../shared/domain/issue.ts';
import { SEVERITIES } from '../../../lib/severity.ts';
import { queryString } from '../api.ts';
import { formatLocal, formatShort } from '../cadence.ts';
import {
  Breakable,
  EmptyState,
  ErrorState,
  ISSUE_STATUS_TEXT,
  IssueStatusBadge,
  Loading,
  LoadMore,
  RuleId,
  ScanTypeFilter,
  SeverityBadge,
} from '../components.tsx';
import { displayTarget } from '../idn.ts';
import { titleWithSubject } from '../../../shared/domain/issue-title.ts';
import { useTriageControls } from '../issue-triage.tsx';
import { useIssueRules, useIssues } from '../queries.ts';
import { Link, useRouter } from '../router.tsx';
import { useCan } from '../session.ts';

const FILTERS = ['status', 'severity', 'scan_type', 'rule_id', 'target', 'schedule_id', 'overdue'] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

/**
 * The status the page shows when the address bar names none: open issues, the ones to act on.
 * `status=any` in the address bar shows every status.
 */
const DEFAULT_STATUS = 'open';
const ANY_STATUS = 'any';

/** What the API is asked for: the address bar's filters with the status default applied. */
function queryFilters(filters: Filters): Filters {
  const status = filters.status === undefined ? DEFAULT_STATUS : filters.status === ANY_STATUS ? undefined : filters.status;
  return { ...filters, status };
}

/** Pages a sparse filter may follow on its own before asking for Load more (each page is bounded). */
const AUTO_PAGES = 10;
/** Typing pauses this long before the target filter is applied. */
const TYPING_MS = 250;

const capitalised = (text: string) => text[0].toUpperCase() + text.slice(1);

/**
 * Issues (DESIGN §15): one row per problem across scans, most severe first, filtered as the address
 * bar says (so a filtered view can be shared, and Export exports exactly it).
 */
export function IssuesPage() {
  const { search, navigate } = useRouter();
  const filters: Filters = Object.fromEntries(FILTERS.map((name) => [name, search.get(name) ?? undefined]));
  const setFilters = (values: Filters) => {
    const next: Filters = { ...filters, ...values };
    navigate(`/issues${queryString(next)}`, { replace: true, keepScroll: true });
  };

  // The target box applies what is typed after a short pause; the address bar stays the truth.
  const [target, setTarget] = useState(filters.target ?? '');
  const applied = useRef(filters.target);
  useEffect(() => {
    const typed = target.trim() || undefined;
    if (typed === filters.target) return;
    const timer = setTimeout(() => {
      applied.current = typed;
      setFilters({ target: typed });
    }, TYPING_MS);
    return () => clearTimeout(timer);
  }, [target]);
  // The address bar changed under the box (Back, a link, Clear filters): the box shows what applies.
  useEffect(() => {
    if (filters.target === applied.current) return;
    applied.current = filters.target;
    setTarget(filters.target ?? '');
  }, [filters.target]);

  // The default status is not a filter the reader chose: Clear filters appears for the others.
  const filtered =
    FILTERS.some((name) => name !== 'status' && filters[name] !== undefined) || (filters.status ?? DEFAULT_STATUS) !== DEFAULT_STATUS;
  const query = queryFilters(filters);
  return (
    <section className="page">
      <div className="page-head">
        <h1>Issues</h1>
        <a className="button button-secondary" href={`/api/issues/export.csv${queryString(query)}`} download="issues.csv">
          Export CSV
        </a>
      </div>
      <p className="muted">
        One row per problem across scans. A later scan that runs the check and no longer finds it resolves it; one that finds it again
        reopens it.
      </p>
      <form className="filters" aria-label="Filter issues" onSubmit={(event) => event.preventDefault()}>
        <div className="field field-grow">
          <label htmlFor="issue-target">Target</label>
          <input
            id="issue-target"
            type="search"
            value={target}
            onChange={(event) => setTarget(event.target.value)}
            placeholder="example.com (any case)"
            spellCheck={false}
            autoComplete="off"
            aria-describedby="issue-target-hint"
          />
          <span id="issue-target-hint" className="visually-hidden">
            A whole target, in any case; internationalised names as typed or in punycode.
          </span>
        </div>
        <div className="field">
          <label htmlFor="issue-status">Status</label>
          <select
            id="issue-status"
            value={filters.status ?? DEFAULT_STATUS}
            onChange={(e) => setFilters({ status: e.target.value === DEFAULT_STATUS ? undefined : e.target.value })}
          >
            <option value={ANY_STATUS}>Any status</option>
            {ISSUE_STATUSES.map((status) => (
              <option key={status} value={status}>
                {ISSUE_STATUS_TEXT[status]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="issue-severity">Severity</label>
          <select
            id="issue-severity"
            value={filters.severity ?? ''}
            onChange={(e) => setFilters({ severity: e.target.value || undefined })}
          >
            <option value="">Any severity</option>
            {SEVERITIES.map((severity) => (
              <option key={severity} value={severity}>
                {capitalised(severity)}
              </option>
            ))}
          </select>
        </div>
        <ScanTypeFilter
          id="issue-scan-type"
          value={filters.scan_type ?? ''}
          onChange={(scan_type) => setFilters({ scan_type: scan_type || undefined })}
        />
        <RulePicker value={filters.rule_id} onChange={(rule_id) => setFilters({ rule_id })} />
        <div className="field field-check">
          <label htmlFor="issue-overdue" className="check">
            <input
              id="issue-overdue"
              type="checkbox"
              checked={filters.overdue === 'true'}
              onChange={(event) => setFilters({ overdue: event.target.checked ? 'true' : undefined })}
              aria-describedby="issue-overdue-hint"
            />
            Overdue
          </label>
          <span id="issue-overdue-hint" className="visually-hidden">
            Only open issues past their due date under the tenant's SLA.
          </span>
        </div>
        {filters.schedule_id && (
          <p className="filter-chip">
            Last reported by schedule <span className="mono">{filters.schedule_id}</span>{' '}
            <button type="button" className="link-button" onClick={() => setFilters({ schedule_id: undefined })}>
              Clear
            </button>
          </p>
        )}
        {filtered && (
          <button type="button" className="button button-ghost" onClick={() => navigate('/issues', { replace: true, keepScroll: true })}>
            Clear filters
          </button>
        )}
      </form>
      <IssueTable
        filters={query}
        filtered={filtered}
        onRule={(rule_id) => setFilters({ rule_id })}
        onAnyStatus={() => setFilters({ status: ANY_STATUS })}
      />
    </section>
  );
}

/** The rules the tenant has issues of (GET /api/issues/rules/), never a guess typed by hand. */
function RulePicker({ value, onChange }: { value: string | undefined; onChange: (rule: string | undefined) => void }) {
  const rules = useIssueRules();
  const known = rules.data?.items ?? [];
  // A rule from a shared link or a row (outside the catalogues) is still shown as chosen.
  const options = value !== undefined && !known.some((rule) => rule.rule_id === value) ? [{ rule_id: value, title: '' }, ...known] : known;
  return (
    <div className="field field-grow">
      <label htmlFor="issue-rule">Rule</label>
      <select
        id="issue-rule"
        value={value ?? ''}
        onChange={(e) => onChange(e.target.value || undefined)}
        aria-describedby={rules.isError ? 'issue-rule-error' : undefined}
      >
        <option value="">{rules.isPending ? 'Loading rules…' : known.length === 0 ? 'No rules yet' : 'Any rule'}</option>
        {options.map((rule) => (
          <option key={rule.rule_id} value={rule.rule_id}>
            {rule.title ? `${rule.title} (${rule.rule_id})` : rule.rule_id}
          </option>
        ))}
      </select>
      {rules.isError && (
        <p id="issue-rule-error" className="field-error">
          Could not load the rules: {rules.error.message}
        </p>
      )}
    </div>
  );
}

function IssueTable({
  filters,
  filtered,
  onRule,
  onAnyStatus,
}: {
  filters: Filters;
  filtered: boolean;
  onRule: (rule: string) => void;
  onAnyStatus: () => void;
}) {
  const openOnly = filters.status === DEFAULT_STATUS;
  const anyStatus = (
    <button type="button" className="link-button" onClick={onAnyStatus}>
      Show every status
    </button>
  );
  const issues = useIssues(filters);
  const canTriage = useCan('operator');
  const triage = useTriageControls();
  const items = issues.data?.pages.flatMap((page) => page.items) ?? [];
  const pages = issues.data?.pages.length ?? 0;
  // A page may be short, even empty, while a cursor says more may match (docs/issues.md): follow a
  // few on our own so an empty first page is never shown as "no issues".
  const following = issues.hasNextPage && items.length < 50 && pages < AUTO_PAGES;
  useEffect(() => {
    if (following && !issues.isFetchingNextPage && !issues.isError) void issues.fetchNextPage();
  }, [following, issues]);

  if (issues.isPending || (items.length === 0 && following)) return <Loading label="Loading issues…" />;
  if (issues.isError) return <ErrorState error={issues.error} retry={() => void issues.refetch()} />;
  return (
    <>
      {triage.view}
      {items.length === 0 && !issues.hasNextPage ? (
        filtered ? (
          <EmptyState title={openOnly ? 'No open issues match these filters' : 'No issues match these filters'}>
            {openOnly && <p className="muted">Resolved, accepted and false positive ones are not listed here: {anyStatus}.</p>}
            {filters.overdue === 'true' && (
              <p className="muted">
                Overdue counts open issues past their due date under the <Link to="/settings/sla">SLA</Link>; a severity without days is
                never overdue.
              </p>
            )}
            {filters.target && (
              <p className="muted">
                The target filter matches a whole target in any case (<code>Example.COM</code> finds <code>example.com</code>), not a part
                of one.
              </p>
            )}
          </EmptyState>
        ) : (
          <EmptyState title="No open issues">
            <p className="muted">
              Issues appear when a scan reports something. Start one from the <Link to="/">Scan</Link> page. Resolved, accepted and false
              positive ones are not listed here: {anyStatus}.
            </p>
          </EmptyState>
        )
      ) : (
        <div className="table-wrap">
          <div className="table-count">
            <p className="muted" role="status" aria-live="polite">
              {items.length} {openOnly ? 'open ' : ''}
              {items.length === 1 ? 'issue' : 'issues'}
              {issues.hasNextPage ? ' shown; more may match' : ''} · most severe first, then most recently seen
            </p>
            {openOnly && anyStatus}
          </div>
          {items.length > 0 && (
            <table className="table issues-table">
              <caption className="visually-hidden">Issues, most severe first, then most recently seen</caption>
              <thead>
                <tr>
                  <th scope="col">Issue</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Severity</th>
                  <th scope="col">Status</th>
                  <th scope="col">Target</th>
                  <th scope="col">First seen</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Seen</th>
                  <th scope="col">Due</th>
                  {canTriage && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {items.map((issue) => (
                  <tr key={issue.id}>
                    <th scope="row" className="cell-name">
                      <Link to={`/issues/${issue.id}`} aria-label={titleWithSubject(issue)}>
                        {issue.title}
                      </Link>
                      <span className="cell-sub">
                        <button
                          type="button"
                          className="link-button mono"
                          title={`Show only ${issue.rule_id}`}
                          aria-label={`Filter by rule ${issue.rule_id}`}
                          onClick={() => onRule(issue.rule_id)}
                        >
                          <RuleId id={issue.rule_id} />
                        </button>
                      </span>
                    </th>
                    <td data-label="Subject" className="cell-subject" title={issue.subject}>
                      <span className="mono">
                        <Breakable text={issue.subject} />
                      </span>
                    </td>
                    <td data-label="Severity">
                      <SeverityBadge severity={issue.severity} />
                    </td>
                    <td data-label="Status">
                      <IssueStatusBadge status={issue.status} />
                      {issue.status === 'accepted_risk' && issue.status_until && (
                        <span className="cell-sub" title={formatLocal(issue.status_until)}>
                          until {formatShort(issue.status_until)}
                        </span>
                      )}
                      {issue.assignee && (
                        <span className="cell-sub cell-assignee" title={`Assigned to ${issue.assignee}`}>
                          → <Breakable text={issue.assignee} />
                        </span>
                      )}
                    </td>
                    <td data-label="Target" className="cell-target" title={issue.target}>
                      <span className="mono">
                        <Breakable text={displayTarget(issue.target)} />
                      </span>
                    </td>
                    <td data-label="First seen" className="cell-date" title={formatLocal(issue.first_seen_at)}>
                      {formatShort(issue.first_seen_at)}
                    </td>
                    <td data-label="Last seen" className="cell-date" title={formatLocal(issue.last_seen_at)}>
                      {formatShort(issue.last_seen_at)}
                    </td>
                    <td data-label="Seen" className="cell-seen">
                      {issue.occurrence_count} {issue.occurrence_count === 1 ? 'time' : 'times'}
                      {issue.reopened_count > 0 && <span className="cell-sub">reopened {issue.reopened_count}×</span>}
                    </td>
                    <td data-label="Due" className="cell-date" title={issue.due_at ? formatLocal(issue.due_at) : 'No due date'}>
                      {issue.due_at ? formatShort(issue.due_at) : <span className="muted">—</span>}
                      {issue.overdue && (
                        <span className="cell-sub">
                          <span className="badge badge-overdue">Overdue</span>
                        </span>
                      )}
                    </td>
                    {canTriage && (
                      <td data-label="Actions" className="cell-actions">
                        {triage.actions(issue)}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <LoadMore query={issues} label="Load more issues" />
        </div>
      )}
    </>
  );
}
