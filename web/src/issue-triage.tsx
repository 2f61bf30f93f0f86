import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Issue, type IssueStatus } from '../../shared/domain/issue.ts';
import { api, ApiError } from './api.ts';
import { Dialog, Field } from './components.tsx';
import { titleWithSubject } from '../../shared/domain/issue-title.ts';

/** What a person can set an issue to (PATCH /api/issues/{id}/, DESIGN §15). */
export type TriageStatus = 'accepted_risk' | 'false_positive' | 'open';

export const TRIAGE_LABEL: Record<TriageStatus, string> = {
  accepted_risk: 'Accept risk',
  false_positive: 'Mark false positive',
  open: 'Reopen',
};

/** The actions that change an issue of this status: never the status it already has. */
export function triageActions(status: IssueStatus): TriageStatus[] {
  if (status === 'open') return ['accepted_risk', 'false_positive'];
  if (status === 'resolved') return ['open'];
  if (status === 'accepted_risk') return ['false_positive', 'open'];
  return ['accepted_risk', 'open'];
}

/**
 * The instant an accepted risk ends for a date picked in the form: the end of that day, local time
 * (the issue counts as open again from then).
 */
export function untilOf(date: string): string {
  return new Date(`${date}T23:59:59.999`).toISOString();
}

function localDate(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}`;
}

/** One PATCH; every page that shows the issue reads it again afterwards. */
export function useTriage(onDone: (issue: Issue, status: TriageStatus) => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, ...body }: { id: string; status: TriageStatus; reason?: string; until?: string }) =>
      api(`/api/issues/${encodeURIComponent(id)}/`, Issue, { method: 'PATCH', body }),
    onSuccess: (issue, variables) => {
      // The issue's page shows the answer at once (with the notice), then everything reads again.
      queryClient.setQueryData(['issue', issue.id], (shown: object | undefined) => (shown ? { ...shown, ...issue } : shown));
      void queryClient.invalidateQueries({ queryKey: ['issues'] });
      void queryClient.invalidateQueries({ queryKey: ['issue', issue.id] });
      void queryClient.invalidateQueries({ queryKey: ['scan-changes'] });
      onDone(issue, variables.status);
    },
  });
}

/**
 * The form behind Accept risk and Mark false positive: a reason (required, as the API requires it)
 * and, for an accepted risk, an optional last day. Server errors land under the field they name.
 */
export function TriageDialog({
  issue,
  status,
  onClose,
  onDone,
}: {
  issue: Issue | null;
  status: 'accepted_risk' | 'false_positive';
  onClose: () => void;
  onDone: (issue: Issue, status: TriageStatus) => void;
}) {
  const [reason, setReason] = useState('');
  const [until, setUntil] = useState('');
  const [errors, setErrors] = useState<{ reason?: string; until?: string; form?: string }>({});
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const triage = useTriage((updated, changed) => {
    onDone(updated, changed);
    onClose();
  });
  useEffect(() => {
    if (!issue) return;
    setReason('');
    setUntil('');
    setErrors({});
    triage.reset();
    reasonRef.current?.focus();
    // A new issue (or action) opens a fresh form.
  }, [issue?.id, status]);

  const submit = () => {
    if (!issue) return;
    const next: typeof errors = {};
    if (reason.trim() === '') next.reason = 'Reason is required.';
    if (status === 'accepted_risk' && until !== '' && Date.parse(untilOf(until)) <= Date.now()) next.until = 'Until must be a future date.';
    setErrors(next);
    if (next.reason) return reasonRef.current?.focus();
    if (next.until) return document.getElementById('triage-until')?.focus();
    triage.mutate(
      { id: issue.id, status, reason: reason.trim(), ...(status === 'accepted_risk' && until !== '' ? { until: untilOf(until) } : {}) },
      {
        onError: (error) => {
          if (error instanceof ApiError && error.details.length > 0) {
            const byField: typeof errors = {};
            for (const detail of error.details) {
              if (detail.field === 'reason') byField.reason = `Reason ${detail.message}.`;
              else if (detail.field === 'until') byField.until = `Until ${detail.message}.`;
              else byField.form = `${detail.field} ${detail.message}.`;
            }
            setErrors(byField);
          } else setErrors({ form: error instanceof Error ? error.message : String(error) });
        },
      },
    );
  };

  const title = status === 'accepted_risk' ? 'Accept the risk' : 'Mark as a false positive';
  return (
    <Dialog title={title} open={issue !== null} onClose={onClose}>
      {issue && (
        <form
          className="form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <p>
            <strong>{titleWithSubject(issue)}</strong> on <span className="mono">{issue.target}</span>
          </p>
          <p className="hint">
            {status === 'accepted_risk'
              ? 'The issue stays listed as an accepted risk; scans keep counting its sightings. Leave Until empty to accept it until someone reopens it.'
              : 'The issue is kept as a false positive; scans keep counting its sightings but it no longer counts as open.'}
          </p>
          <Field label="Reason" htmlFor="triage-reason" errorId="triage-reason-error" error={errors.reason}>
            <textarea
              id="triage-reason"
              ref={reasonRef}
              rows={3}
              value={reason}
              required
              aria-required="true"
              aria-invalid={errors.reason ? true : undefined}
              aria-describedby={errors.reason ? 'triage-reason-error' : undefined}
              onChange={(event) => setReason(event.target.value)}
            />
          </Field>
          {status === 'accepted_risk' && (
            <Field label="Until (optional)" htmlFor="triage-until" errorId="triage-until-error" error={errors.until}>
              <input
                id="triage-until"
                type="date"
                value={until}
                min={localDate(new Date())}
                aria-invalid={errors.until ? true : undefined}
                aria-describedby={errors.until ? 'triage-until-error' : 'triage-until-hint'}
                onChange={(event) => setUntil(event.target.value)}
              />
              <p id="triage-until-hint" className="hint">
                The issue counts as open again after this day.
              </p>
            </Field>
          )}
          {errors.form && (
            <p className="form-error" role="alert">
              {errors.form}
            </p>
          )}
          <div className="form-actions">
            <button type="button" className="button button-secondary" onClick={onClose}>
              Cancel
            </button>
            <button type="submit" className="button button-primary" disabled={triage.isPending}>
              {triage.isPending ? 'Saving…' : TRIAGE_LABEL[status]}
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

const DONE_TEXT: Record<TriageStatus, string> = {
  accepted_risk: 'accepted as a risk',
  false_positive: 'marked as a false positive',
  open: 'reopened',
};

/**
 * Triage for a page that lists issues: `actions(issue)` renders an issue's buttons; Accept risk and
 * Mark false positive open the form, Reopen sends at once. `view` is the dialog and a polite
 * notice saying what changed (or what went wrong).
 */
export function useTriageControls() {
  const [editing, setEditing] = useState<{ issue: Issue; status: 'accepted_risk' | 'false_positive' } | null>(null);
  const [notice, setNotice] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);
  const returnFocus = useRef<HTMLElement | null>(null);
  const noticeRef = useRef<HTMLParagraphElement>(null);
  const [focusNotice, setFocusNotice] = useState(false);
  // The button that was pressed may be gone (an accepted risk has no Accept risk): focus goes to
  // the notice saying what happened, where a keyboard user can read it and Tab on.
  useEffect(() => {
    if (focusNotice && notice) {
      noticeRef.current?.focus();
      setFocusNotice(false);
    }
  }, [focusNotice, notice]);
  const done = (issue: Issue, status: TriageStatus) => {
    setNotice({ tone: 'ok', text: `“${titleWithSubject(issue)}” on ${issue.target} ${DONE_TEXT[status]}.` });
    setFocusNotice(true);
  };
  const reopen = useTriage(done);

  const start = (issue: Issue, status: TriageStatus) => {
    setNotice(null);
    returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (status !== 'open') return setEditing({ issue, status });
    reopen.mutate(
      { id: issue.id, status: 'open' },
      {
        onError: (error) => {
          setNotice({ tone: 'error', text: `Could not reopen “${issue.title}”: ${error.message}` });
          setFocusNotice(true);
        },
      },
    );
  };
  const close = () => {
    // The dialog's own close event comes after a change has closed it already: nothing to do then.
    if (editing === null) return;
    setEditing(null);
    // Cancelled: back to the button that opened the form (after a change the notice takes focus).
    if (returnFocus.current?.isConnected) returnFocus.current.focus();
  };

  const actions = (issue: Issue) =>
    triageActions(issue.status).map((status) => (
      <button
        key={status}
        type="button"
        className="button button-secondary button-small"
        disabled={reopen.isPending && reopen.variables?.id === issue.id}
        onClick={() => start(issue, status)}
      >
        {TRIAGE_LABEL[status]}
      </button>
    ));

  const view = (
    <>
      <div aria-live="polite" className="notice-slot">
        {notice && (
          <p ref={noticeRef} tabIndex={-1} className={`notice notice-${notice.tone}`}>
            {notice.text}
          </p>
        )}
      </div>
      <TriageDialog issue={editing?.issue ?? null} status={editing?.status ?? 'accepted_risk'} onClose={close} onDone={done} />
    </>
  );
  return { actions, view };
}
