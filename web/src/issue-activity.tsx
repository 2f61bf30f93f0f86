import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Issue, type IssueComment, type IssueHistoryEntry } from '../../shared/domain/issue.ts';
import { api, ApiError } from './api.ts';
import { formatLocal } from './cadence.ts';
import { Actor, ISSUE_STATUS_TEXT } from './components.tsx';

/** An assignment or a comment: one PATCH, then the issue and the lists read again. */
function useIssueChange(id: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: { assignee: string | null } | { comment: string }) =>
      api(`/api/issues/${encodeURIComponent(id)}/`, Issue, { method: 'PATCH', body }),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: ['issue', id] });
      void queryClient.invalidateQueries({ queryKey: ['issues'] });
    },
  });
}

/** The message of a failed change, naming the field as the server did. */
function messageOf(error: unknown, field: string, label: string): string {
  if (error instanceof ApiError) {
    const detail = error.details.find((item) => item.field === field);
    if (detail) return `${label} ${detail.message}.`;
  }
  return error instanceof Error ? error.message : String(error);
}

/** Who is on the issue; an operator assigns it (a user id or an email) or unassigns it. */
export function Assignee({ issue, canEdit }: { issue: Pick<Issue, 'id' | 'assignee'>; canEdit: boolean }) {
  const [value, setValue] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const change = useIssueChange(issue.id);
  const send = (assignee: string | null) => {
    setError(null);
    setDone(null);
    change.mutate(
      { assignee },
      {
        onSuccess: () => {
          setValue('');
          setDone(assignee === null ? 'Unassigned.' : `Assigned to ${assignee}.`);
        },
        onError: (failure) => setError(messageOf(failure, 'assignee', 'Assignee')),
      },
    );
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const typed = value.trim();
    if (typed === '') return setError('Type a user id or an email to assign.');
    send(typed);
  };
  return (
    <section className="card issue-assignee" aria-labelledby="assignee-title">
      <h2 id="assignee-title" className="section-title">
        Assignee
      </h2>
      <p>{issue.assignee ? <span className="mono">{issue.assignee}</span> : <span className="muted">Nobody is assigned.</span>}</p>
      {canEdit && (
        <form className="inline-form" noValidate onSubmit={submit} aria-label="Assign the issue">
          <div className="field field-grow">
            <label htmlFor="issue-assignee">Assign to</label>
            <input
              id="issue-assignee"
              type="text"
              value={value}
              placeholder="a user id or an email"
              autoComplete="off"
              spellCheck={false}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'issue-assignee-error' : undefined}
              onChange={(event) => setValue(event.target.value)}
            />
          </div>
          <div className="inline-form-actions">
            <button type="submit" className="button button-secondary button-small" disabled={change.isPending}>
              Assign
            </button>
            {issue.assignee && (
              <button type="button" className="button button-ghost button-small" disabled={change.isPending} onClick={() => send(null)}>
                Unassign
              </button>
            )}
          </div>
        </form>
      )}
      <div aria-live="polite" className="notice-slot">
        {error && (
          <p id="issue-assignee-error" className="field-error">
            {error}
          </p>
        )}
        {done && !error && <p className="notice notice-ok">{done}</p>}
      </div>
    </section>
  );
}

/** The issue's comments, oldest first; an operator adds one. */
export function Comments({ issueId, comments, canEdit }: { issueId: string; comments: IssueComment[]; canEdit: boolean }) {
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const change = useIssueChange(issueId);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const typed = text.trim();
    if (typed === '') return setError('Write a comment first.');
    setError(null);
    change.mutate(
      { comment: typed },
      { onSuccess: () => setText(''), onError: (failure) => setError(messageOf(failure, 'comment', 'Comment')) },
    );
  };
  return (
    <section aria-labelledby="comments-title">
      <h2 id="comments-title" className="section-title">
        Comments
      </h2>
      {comments.length === 0 ? (
        <p className="muted">No comments yet.</p>
      ) : (
        <ol className="comments" aria-label="Comments, oldest first">
          {comments.map((comment, index) => (
            <li key={`${comment.at}-${index}`} className="comment">
              <p className="comment-head">
                <span className="mono">{comment.by}</span> · <time dateTime={comment.at}>{formatLocal(comment.at)}</time>
              </p>
              <p className="pre-line">{comment.text}</p>
            </li>
          ))}
        </ol>
      )}
      {canEdit && (
        <form className="form comment-form" noValidate onSubmit={submit} aria-label="Add a comment">
          <div className="field">
            <label htmlFor="issue-comment">Comment</label>
            <textarea
              id="issue-comment"
              rows={3}
              value={text}
              maxLength={4000}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'issue-comment-error' : undefined}
              onChange={(event) => setText(event.target.value)}
            />
            {error && (
              <p id="issue-comment-error" className="field-error" role="alert">
                {error}
              </p>
            )}
          </div>
          <div className="form-actions">
            <button type="submit" className="button button-secondary" disabled={change.isPending}>
              {change.isPending ? 'Adding…' : 'Add comment'}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/** Every status change, newest first: who (a person, or the scan that did it), when, and why. */
export function History({ history }: { history: IssueHistoryEntry[] }) {
  const newestFirst = [...history].reverse();
  return (
    <section aria-labelledby="history-title">
      <h2 id="history-title" className="section-title">
        History
      </h2>
      {newestFirst.length === 0 ? (
        <p className="muted">No status change is recorded for this issue.</p>
      ) : (
        <ol className="history" aria-label="Status changes, newest first">
          {newestFirst.map((entry, index) => (
            <li key={`${entry.at}-${index}`} className="history-entry">
              <p>
                <strong>{entry.from === null ? 'Opened' : `${ISSUE_STATUS_TEXT[entry.from]} → ${ISSUE_STATUS_TEXT[entry.to]}`}</strong> by{' '}
                <Actor by={entry.by} /> · <time dateTime={entry.at}>{formatLocal(entry.at)}</time>
              </p>
              {entry.reason && <p className="pre-line muted">{entry.reason}</p>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
