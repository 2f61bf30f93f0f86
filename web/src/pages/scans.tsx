import { SCAN_STATUSES } from '../../../shared/domain/scan-job.ts';
import { scanTypes } from '../../../shared/domain/scan-types.ts';
import { formatLocal } from '../cadence.ts';
import { EmptyState, ErrorState, Loading, LoadMore, ScanTypeFilter, StatusBadge } from '../components.tsx';
import { useScans } from '../queries.ts';
import { Link, useRouter } from '../router.tsx';
import { useTypedFilter } from '../typed-filter.ts';

const TRIGGER_TEXT = { manual: 'Manual', cron: 'Schedule', run_now: 'Run now', adversary: 'Adversary step' } as const;

/** The tenant's scans, newest first, filtered in the address bar so a filtered view can be shared. */
export function ScansPage() {
  const { search, navigate } = useRouter();
  const filters = {
    status: search.get('status') ?? undefined,
    scan_type: search.get('scan_type') ?? undefined,
    schedule_id: search.get('schedule_id') ?? undefined,
    search: search.get('search') ?? undefined,
  };
  const scans = useScans(filters);
  const setFilter = (name: string, value: string) => {
    const next = new URLSearchParams(search);
    if (value) next.set(name, value);
    else next.delete(name);
    const query = next.toString();
    navigate(`/scans${query ? `?${query}` : ''}`, { replace: true });
  };
  const [typed, setTyped] = useTypedFilter(filters.search, (value) => setFilter('search', value ?? ''));
  const items = scans.data?.pages.flatMap((page) => page.items) ?? [];
  const filtered = !!(filters.status || filters.scan_type || filters.schedule_id || filters.search);

  return (
    <section className="page">
      <h1>Scans</h1>
      <form className="filters" aria-label="Filter scans" onSubmit={(event) => event.preventDefault()}>
        <div className="field field-grow">
          <label htmlFor="scan-search">Target</label>
          <input
            id="scan-search"
            type="search"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            placeholder="Any part of a target, e.g. example.com"
            spellCheck={false}
            autoComplete="off"
          />
        </div>
        <div className="field">
          <label htmlFor="scan-status">Status</label>
          <select id="scan-status" value={filters.status ?? ''} onChange={(e) => setFilter('status', e.target.value)}>
            <option value="">Any status</option>
            {SCAN_STATUSES.map((status) => (
              <option key={status} value={status}>
                {status[0].toUpperCase() + status.slice(1)}
              </option>
            ))}
          </select>
        </div>
        <ScanTypeFilter id="scan-type" value={filters.scan_type ?? ''} onChange={(scan_type) => setFilter('scan_type', scan_type)} />
        {filters.schedule_id && (
          <p className="filter-chip">
            Schedule {filters.schedule_id}{' '}
            <button type="button" className="link-button" onClick={() => setFilter('schedule_id', '')}>
              Clear
            </button>
          </p>
        )}
      </form>
      {scans.isPending ? (
        <Loading label="Loading scans…" />
      ) : scans.isError ? (
        <ErrorState error={scans.error} retry={() => void scans.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title={filtered ? 'No scans match these filters' : 'No scans yet'}>
          <p className="muted">
            Start one from the <Link to="/">Scan</Link> page.
          </p>
        </EmptyState>
      ) : (
        <div className="table-wrap">
          <table className="table">
            <caption className="visually-hidden">Scans, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Target</th>
                <th scope="col">Scan type</th>
                <th scope="col">Status</th>
                <th scope="col">Started by</th>
                <th scope="col">Created</th>
                <th scope="col">Findings</th>
              </tr>
            </thead>
            <tbody>
              {items.map((scan) => (
                <tr key={scan.id}>
                  <th scope="row" className="cell-target">
                    <Link to={`/scans/${scan.id}`}>{scan.target}</Link>
                    {scan.target_count > 1 && (
                      <span className="muted" title={`This scan covers ${scan.target_count} targets`}>
                        {' '}
                        and {scan.target_count - 1} more
                      </span>
                    )}
                  </th>
                  <td data-label="Scan type">{scanTypes[scan.scan_type].label}</td>
                  <td data-label="Status">
                    <StatusBadge status={scan.status} />
                  </td>
                  <td data-label="Started by">{TRIGGER_TEXT[scan.trigger]}</td>
                  <td data-label="Created">{formatLocal(scan.created_at)}</td>
                  <td data-label="Findings">{scan.finding_count}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <LoadMore query={scans} label="Load more scans" />
        </div>
      )}
    </section>
  );
}
