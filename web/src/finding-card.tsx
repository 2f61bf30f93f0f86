import type { ReactNode } from 'react';
import type { Finding } from '../../shared/domain/finding.ts';
import { SEVERITIES } from '../../lib/severity.ts';
import { formatLocal } from './cadence.ts';
import { evidenceLabel } from './evidence-labels.ts';
import { SeverityBadge } from './components.tsx';
import { recordToPublish } from './record-to-publish.ts';
import { Link } from './router.tsx';

/** Most severe first, then by title: a High never follows a Medium. */
export function bySeverity(a: Finding, b: Finding): number {
  return SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || a.title.localeCompare(b.title);
}

type Row = Record<string, string | number | boolean | null>;

function isPlain(value: unknown): value is string | number | boolean | null {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value);
}

function plainText(value: string | number | boolean | null): string {
  if (value === null) return '—';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const COMMIT = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/** A list of records with the same plain fields (a secret's locations): a table reads better than fields. */
function isRows(value: unknown): value is Row[] {
  if (!Array.isArray(value) || value.length === 0) return false;
  return (value as unknown[]).every(
    (row) => typeof row === 'object' && row !== null && !Array.isArray(row) && Object.values(row).every(isPlain),
  );
}

/** One cell: a time in the reader's time zone, a commit shortened (whole in its title), else the text. */
function Cell({ value }: { value: Row[string] | undefined }) {
  if (value === undefined) return <span className="muted">—</span>;
  if (typeof value === 'string' && ISO_TIME.test(value)) return <span title={value}>{formatLocal(value)}</span>;
  if (typeof value === 'string' && COMMIT.test(value)) return <code title={value}>{value.slice(0, 12)}</code>;
  return <>{plainText(value)}</>;
}

function EvidenceTable({ rows, label, ruleId }: { rows: Row[]; label: string; ruleId?: string }) {
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  return (
    <div className="evidence-table-wrap" tabIndex={0} role="region" aria-label={label}>
      <table className="evidence-table">
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column} scope="col">
                {evidenceLabel(column, ruleId)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => (
            <tr key={index}>
              {columns.map((column) => (
                <td key={column} data-label={evidenceLabel(column, ruleId)}>
                  <Cell value={row[column]} />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** One evidence value: text, a list, a table, or one level of labelled fields; anything deeper as compact JSON. */
function EvidenceValue({ name, value, depth, ruleId }: { name: string; value: unknown; depth: number; ruleId?: string }): ReactNode {
  if (isPlain(value)) {
    if (typeof value === 'string' && ISO_TIME.test(value)) return <Cell value={value} />;
    return <span className="evidence-text">{plainText(value)}</span>;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="muted">none</span>;
    if (value.every(isPlain)) return <span className="evidence-text">{value.map(plainText).join(', ')}</span>;
    if (isRows(value)) return <EvidenceTable rows={value} label={evidenceLabel(name, ruleId)} ruleId={ruleId} />;
  }
  if (depth === 0 && typeof value === 'object' && !Array.isArray(value))
    return <EvidenceFields evidence={value as Record<string, unknown>} depth={1} ruleId={ruleId} />;
  return <code className="evidence-json">{JSON.stringify(value)}</code>;
}

function EvidenceFields({ evidence, depth, ruleId }: { evidence: Record<string, unknown>; depth: number; ruleId?: string }) {
  return (
    <dl className="evidence-fields">
      {Object.entries(evidence).map(([key, value]) => (
        <div key={key} className={isRows(value) ? 'evidence-wide' : undefined}>
          <dt>{evidenceLabel(key, ruleId)}</dt>
          <dd>
            <EvidenceValue name={key} value={value} depth={depth} ruleId={ruleId} />
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The evidence as labelled fields (named in words for the finding's engine: web/src/evidence-labels.ts),
 * a list of places as a table, with the raw JSON one click away.
 */
export function Evidence({ finding }: { finding: Pick<Finding, 'id' | 'title' | 'evidence'> & { rule_id?: string } }) {
  const titleId = `evidence-${finding.id}`;
  return (
    <div className="evidence" role="group" aria-labelledby={titleId}>
      <h4 id={titleId}>Evidence</h4>
      {Object.keys(finding.evidence).length === 0 ? (
        <p className="muted">None recorded.</p>
      ) : (
        <EvidenceFields evidence={finding.evidence} depth={0} ruleId={finding.rule_id} />
      )}
      <details className="evidence-raw">
        <summary>Evidence as JSON</summary>
        {/* Long evidence (a rua rollup row) scrolls: focusable, so a keyboard can scroll it too. */}
        <pre tabIndex={0} aria-label={`Evidence of ${finding.title} as JSON`}>
          {JSON.stringify(finding.evidence, null, 2)}
        </pre>
      </details>
    </div>
  );
}

function DnsRecord({ finding }: { finding: Finding }) {
  const record = recordToPublish(finding);
  if (!record) return null;
  const id = `record-${finding.id}`;
  return (
    <div className="dns-record" role="group" aria-labelledby={id}>
      <h4 id={id}>DNS record to publish</h4>
      <dl className="evidence-fields">
        <div>
          <dt>Name</dt>
          <dd>
            <code>{record.name}</code>
          </dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd>
            <code>{record.type}</code>
          </dd>
        </div>
        <div>
          <dt>Value</dt>
          <dd>
            <code className="dns-value">{record.value}</code>
          </dd>
        </div>
      </dl>
      {record.note && <p className="hint">{record.note}</p>}
    </div>
  );
}

/**
 * One finding: severity, title, rule, target, description, evidence as fields, remediation (with the
 * DNS record to publish when the fix is one), first and last seen. `children` goes under the head,
 * for pages that add their own facts or actions.
 */
export function FindingCard({
  finding,
  showScanLink = true,
  children,
}: {
  finding: Finding;
  showScanLink?: boolean;
  children?: ReactNode;
}) {
  return (
    <article className={`finding finding-${finding.severity}`} aria-labelledby={`finding-${finding.id}`}>
      <div className="finding-head">
        <SeverityBadge severity={finding.severity} />
        <h3 id={`finding-${finding.id}`} className="finding-title">
          {finding.title}
        </h3>
      </div>
      <p className="finding-meta">
        <code>{finding.rule_id}</code> · <span className="mono">{finding.target}</span>
        {showScanLink && (
          <>
            {' '}
            · <Link to={`/scans/${finding.scan_id}`}>scan</Link>
          </>
        )}
      </p>
      {children}
      {finding.description && <p>{finding.description}</p>}
      <div className="finding-grid">
        <Evidence finding={finding} />
        <div>
          <h4>Remediation</h4>
          <p>{finding.remediation}</p>
          <DnsRecord finding={finding} />
          <dl className="seen">
            <dt>First seen</dt>
            <dd>{formatLocal(finding.first_seen_at)}</dd>
            <dt>Last seen</dt>
            <dd>{formatLocal(finding.last_seen_at)}</dd>
          </dl>
        </div>
      </div>
    </article>
  );
}
