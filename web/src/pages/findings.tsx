import { useState } from 'react';
import { SEVERITIES } from '../../../shared/domain/scan-job.ts';
import { EmptyState, ErrorState, Loading } from '../components.tsx';
import { FindingCard } from '../finding-card.tsx';
import { useFindings } from '../queries.ts';
import { useRouter } from '../router.tsx';

/** Findings with filters by severity, rule, target and scan (kept in the address bar). */
export function FindingsPage() {
  const { search, navigate } = useRouter();
  const [draft, setDraft] = useState({
    rule_id: search.get('rule_id') ?? '',
    target: search.get('target') ?? '',
    scan_id: search.get('scan_id') ?? '',
  });
  const filters = {
    severity: search.get('severity') ?? undefined,
    rule_id: search.get('rule_id') ?? undefined,
    target: search.get('target') ?? undefined,
    scan_id: search.get('scan_id') ?? undefined,
  };
  const apply = (values: Record<string, string | undefined>) => {
    const next = new URLSearchParams();
    for (const [name, value] of Object.entries({ ...filters, ...values })) if (value) next.set(name, value.trim());
    const query = next.toString();
    navigate(`/findings${query ? `?${query}` : ''}`, { replace: true });
  };
  return (
    <section className="page">
      <h1>Findings</h1>
      <form
        className="filters"
        aria-label="Filter findings"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
        }}
      >
        <div className="field">
          <label htmlFor="finding-severity">Severity</label>
          <select id="finding-severity" value={filters.severity ?? ''} onChange={(e) => apply({ severity: e.target.value })}>
            <option value="">Any severity</option>
            {SEVERITIES.map((severity) => (
              <option key={severity} value={severity}>
                {severity[0].toUpperCase() + severity.slice(1)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="finding-rule">Rule</label>
          <input
            id="finding-rule"
            value={draft.rule_id}
            onChange={(e) => setDraft({ ...draft, rule_id: e.target.value })}
            placeholder="e.g. dmarc.missing"
            spellCheck={false}
          />
        </div>
        <div className="field">
          <label htmlFor="finding-target">Target</label>
          <input
            id="finding-target"
            value={draft.target}
            onChange={(e) => setDraft({ ...draft, target: e.target.value })}
            placeholder="example.com"
            spellCheck={false}
          />
        </div>
        <div className="field">
          <label htmlFor="finding-scan">Scan</label>
          <input
            id="finding-scan"
            value={draft.scan_id}
            onChange={(e) => setDraft({ ...draft, scan_id: e.target.value })}
            placeholder="scan_…"
            spellCheck={false}
          />
        </div>
        <button type="submit" className="button button-secondary">
          Apply filters
        </button>
      </form>
      <FindingList filters={filters} />
    </section>
  );
}

/** A page of findings, each with its evidence, remediation, first and last seen. */
export function FindingList({ filters }: { filters: Record<string, string | undefined> }) {
  const findings = useFindings(filters);
  if (findings.isPending) return <Loading label="Loading findings…" />;
  if (findings.isError) return <ErrorState error={findings.error} retry={() => void findings.refetch()} />;
  const items = findings.data.pages.flatMap((page) => page.items);
  if (items.length === 0)
    return (
      <EmptyState title="No findings">
        {Object.values(filters).some(Boolean) && <p className="muted">Nothing matches these filters.</p>}
      </EmptyState>
    );
  return (
    <>
      <ul className="findings">
        {items.map((finding) => (
          <li key={finding.id}>
            <FindingCard finding={finding} />
          </li>
        ))}
      </ul>
      {findings.hasNextPage && (
        <button
          type="button"
          className="button button-secondary"
          onClick={() => void findings.fetchNextPage()}
          disabled={findings.isFetchingNextPage}
        >
          {findings.isFetchingNextPage ? 'Loading…' : 'Load more findings'}
        </button>
      )}
    </>
  );
}
