import { useEffect, useRef, type ReactNode } from 'react';
import type { LastRunStatus } from '../../shared/domain/schedule.ts';
import type { IssueStatus } from '../../shared/domain/issue.ts';
import type { CheckStatus } from '../../lib/check-status.ts';
import type { Severity } from '../../lib/severity.ts';
import type { ScanStatus } from '../../shared/domain/scan-job.ts';
import { SCAN_TYPES, scanTypes } from '../../shared/domain/scan-types.ts';
import { ApiError } from './api.ts';
import { Link } from './router.tsx';

type Tone = 'neutral' | 'info' | 'success' | 'warning' | 'danger' | 'progress';

export function Badge({ tone, children }: { tone: Tone; children: ReactNode }) {
  return <span className={`badge badge-${tone}`}>{children}</span>;
}

const runTone: Record<LastRunStatus | ScanStatus, Tone> = {
  never_run: 'neutral',
  running: 'progress',
  queued: 'progress',
  success: 'success',
  succeeded: 'success',
  partial: 'warning',
  failed: 'danger',
};
const runText: Record<LastRunStatus | ScanStatus, string> = {
  never_run: 'Never run',
  running: 'Running',
  queued: 'Queued',
  success: 'Success',
  succeeded: 'Succeeded',
  partial: 'Partial',
  failed: 'Failed',
};

export function StatusBadge({ status }: { status: LastRunStatus | ScanStatus }) {
  return (
    <Badge tone={runTone[status]}>
      {(status === 'running' || status === 'queued') && <span className="spinner" aria-hidden="true" />}
      {runText[status]}
    </Badge>
  );
}

const severityTone: Record<Severity, Tone> = { critical: 'danger', high: 'danger', medium: 'warning', low: 'info', info: 'neutral' };

export function SeverityBadge({ severity }: { severity: Severity }) {
  return (
    <span className={`badge badge-${severityTone[severity]} severity-${severity}`}>{severity[0].toUpperCase() + severity.slice(1)}</span>
  );
}

const issueTone: Record<IssueStatus, Tone> = { open: 'danger', resolved: 'success', accepted_risk: 'neutral', false_positive: 'neutral' };
export const ISSUE_STATUS_TEXT: Record<IssueStatus, string> = {
  open: 'Open',
  resolved: 'Resolved',
  accepted_risk: 'Accepted risk',
  false_positive: 'False positive',
};

export function IssueStatusBadge({ status }: { status: IssueStatus }) {
  return <Badge tone={issueTone[status]}>{ISSUE_STATUS_TEXT[status]}</Badge>;
}

const checkTone: Record<CheckStatus, Tone> = { pass: 'success', fail: 'danger', error: 'warning', skipped: 'neutral' };
export const CHECK_STATUS_TEXT: Record<CheckStatus, string> = { pass: 'Pass', fail: 'Fail', error: 'Error', skipped: 'Skipped' };

export function CheckStatusBadge({ status }: { status: CheckStatus }) {
  return <Badge tone={checkTone[status]}>{CHECK_STATUS_TEXT[status]}</Badge>;
}

/** What the last action on a page came to, in one sentence. */
/** "1 schedule", "2 schedules": a count and its noun, singular for one. */
export function plural(count: number, noun: string, nouns = `${noun}s`): string {
  return `${count.toLocaleString()} ${count === 1 ? noun : nouns}`;
}

export interface Notice {
  tone: 'ok' | 'error';
  text: string;
}

/** The polite live region a page's notice appears in (it stays, empty, so a screen reader hears each new notice). */
export function NoticeSlot({ notice }: { notice: Notice | null }) {
  return (
    <div aria-live="polite" className="notice-slot">
      {notice && <p className={`notice notice-${notice.tone}`}>{notice.text}</p>}
    </div>
  );
}

/** A detail page's listing, the way back from it. */
export type Parent = { to: string; label: string };

/** The way back from a detail page: its listing, then the page itself (its id or name). */
export function Breadcrumb({ parent, children }: { parent: Parent; children: ReactNode }) {
  return (
    <p className="breadcrumb">
      <Link to={parent.to}>{parent.label}</Link> / {children}
    </p>
  );
}

/** A detail page for an id this tenant does not have (the API said 404): the way back to its listing, then why. */
export function NotFoundPage({ id, parent, title, children }: { id: string; parent: Parent; title: string; children: ReactNode }) {
  return (
    <section className="page">
      <Breadcrumb parent={parent}>{id}</Breadcrumb>
      <h1>{title}</h1>
      {children}
    </section>
  );
}

/** A listing's Scan type filter: any, or one of the scan types ('' is any). */
export function ScanTypeFilter({ id, value, onChange }: { id: string; value: string; onChange: (value: string) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>Scan type</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="">Any scan type</option>
        {SCAN_TYPES.map((type) => (
          <option key={type} value={type}>
            {scanTypes[type].label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * A rule id that may wrap only between its words (after a dot or an underscore), never inside one:
 * each word is its own unbreakable piece (`.rule-word`), with a break opportunity after it.
 */
export function RuleId({ id }: { id: string }) {
  const words = id.match(/[^._]+[._]?|[._]/g) ?? [id];
  return (
    <span className="rule-id">
      {words.map((word, index) => (
        <span key={index}>
          <span className="rule-word">{word}</span>
          {index < words.length - 1 && <wbr />}
        </span>
      ))}
    </span>
  );
}

/**
 * Text with a break opportunity after each dot, at sign, slash and hyphen (an address, a host name):
 * a narrow column wraps it between its parts before it would cut one.
 */
export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[.@/-])/);
  return (
    <>
      {parts.map((part, index) => (
        <span key={index}>
          {part}
          {index < parts.length - 1 && <wbr />}
        </span>
      ))}
    </>
  );
}

/**
 * Who changed an issue, in words: the tracker records a scan as `system: ssl scan scan_01…`, shown
 * as "an SSL/TLS scan" linked to it; another `system: …` (an accepted risk that expired) as its
 * words; a person as their id.
 */
export function Actor({ by }: { by: string }) {
  const scan = /^system: ([a-z_]+) scan (\S+)$/.exec(by);
  if (scan && scan[1] in scanTypes) {
    const label = scanTypes[scan[1] as keyof typeof scanTypes].label;
    return (
      <>
        {/^[AEIOU]/.test(label) ? 'an' : 'a'} <Link to={`/scans/${scan[2]}`}>{label} scan</Link>
      </>
    );
  }
  if (by.startsWith('system: ')) return <>{by.slice('system: '.length)}</>;
  return <span className="mono">{by}</span>;
}

/** The next page of a listing that pages by cursor (nothing once the last page is in). */
export function LoadMore({
  query,
  label,
}: {
  query: { hasNextPage: boolean; isFetchingNextPage: boolean; fetchNextPage: () => Promise<unknown> };
  label: string;
}) {
  if (!query.hasNextPage) return null;
  return (
    <button
      type="button"
      className="button button-secondary show-more"
      onClick={() => void query.fetchNextPage()}
      disabled={query.isFetchingNextPage}
    >
      {query.isFetchingNextPage ? 'Loading…' : label}
    </button>
  );
}

export function Loading({ label }: { label: string }) {
  return (
    <div className="state" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" /> {label}
    </div>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const message = error instanceof ApiError ? `${error.message} (${error.code})` : error instanceof Error ? error.message : String(error);
  return (
    <div className="state state-error" role="alert">
      <strong>Could not load this.</strong> {message}
      {retry && (
        <button type="button" className="button button-secondary" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <svg aria-hidden="true" viewBox="0 0 24 24" width="40" height="40" className="empty-icon">
        <path d="M12 2 4 5v6c0 5 3.4 9.4 8 11 4.6-1.6 8-6 8-11V5l-8-3Z" fill="none" stroke="currentColor" strokeWidth="1.5" />
        <path d="m8.5 12 2.5 2.5 4.5-5" fill="none" stroke="currentColor" strokeWidth="1.5" />
      </svg>
      <p className="empty-title">{title}</p>
      {children}
    </div>
  );
}

/** A modal dialog on the native <dialog>: focus trap, Escape and the backdrop come from the browser. */
export function Dialog({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby="dialog-title" onClose={onClose} onCancel={onClose}>
      <h2 id="dialog-title">{title}</h2>
      {children}
    </dialog>
  );
}

/** The server's message for a field, under it (DESIGN §8: errors land next to the field they name). */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p id={id} className="field-error">
      {message}
    </p>
  );
}

/** A labelled form field: its label, its control (and any hint) as children, then its error when it has one. */
export function Field({
  label,
  htmlFor,
  errorId,
  error,
  children,
}: {
  label: string;
  /** The control's id. */
  htmlFor: string;
  errorId: string;
  error: string | undefined;
  children: ReactNode;
}) {
  return (
    <div className="field">
      <label htmlFor={htmlFor}>{label}</label>
      {children}
      <FieldError id={errorId} message={error} />
    </div>
  );
}

/** A group of choices (radios or checkboxes) under a legend, described by its error, which follows it. */
export function FieldGroup({
  label,
  describedBy,
  errorId,
  error,
  children,
}: {
  label: string;
  describedBy: string | undefined;
  errorId: string;
  error: string | undefined;
  children: ReactNode;
}) {
  return (
    <fieldset className="fieldset" aria-describedby={describedBy}>
      <legend>{label}</legend>
      {children}
      <FieldError id={errorId} message={error} />
    </fieldset>
  );
}
