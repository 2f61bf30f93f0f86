import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { NotificationTestResult, type NotificationRule } from '../../../shared/domain/notification.ts';
import { scanTypes } from '../../../shared/domain/scan-types.ts';
import { api } from '../api.ts';
import { Dialog, EmptyState, ErrorState, Loading, type Notice, NoticeSlot } from '../components.tsx';
import { InlineConfirm, useConfirmFocus } from '../inline-confirm.tsx';
import { useNotificationRules, useSchedules } from '../queries.ts';
import { useCan } from '../session.ts';
import { DELIVERY_LABELS, EVENT_LABELS, KIND_LABELS, NotificationRuleForm, type Created } from './notification-rule-form.tsx';

type Editing = { mode: 'create' } | { mode: 'edit'; rule: NotificationRule } | { mode: 'secret'; created: Created } | null;
type TestOutcome = { ruleId: string; result: NotificationTestResult } | { ruleId: string; failed: string };

/** Settings → Notifications: the tenant's notification rules (DESIGN §15; admin only, as the API). */
export function NotificationRules() {
  const isAdmin = useCan('admin');
  if (!isAdmin)
    return (
      <>
        <h2 className="section-title">Notifications</h2>
        <p className="muted">Only an admin of this tenant can see and change its notification rules.</p>
      </>
    );
  return <RulesForAdmin />;
}

function RulesForAdmin() {
  const rules = useNotificationRules();
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Editing>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [tested, setTested] = useState<TestOutcome | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['notification-rules'] });

  const act = useMutation({
    mutationFn: async ({ rule, action }: { rule: NotificationRule; action: 'toggle' | 'delete' | 'test' }) => {
      const base = `/api/notifications/${rule.id}/`;
      if (action === 'delete') return api(base, null, { method: 'DELETE' });
      if (action === 'toggle') return api(base, null, { method: 'PATCH', body: { enabled: !rule.enabled } });
      return api(`${base}test/`, NotificationTestResult, { method: 'POST' });
    },
    onMutate: ({ action }) => (action === 'test' ? setTested(null) : setNotice(null)),
    onSuccess: async (result, { rule, action }) => {
      if (action === 'test') {
        setTested({ ruleId: rule.id, result: result as NotificationTestResult });
        return;
      }
      // The list first, then the notice: what the notice says is already on the page.
      await refresh();
      setNotice({
        tone: 'ok',
        text:
          action === 'delete'
            ? `${rule.name} was deleted.`
            : `${rule.name} is ${rule.enabled ? 'disabled: nothing is sent to it' : 'enabled'}.`,
      });
    },
    onError: (error, { rule, action }) => {
      if (action === 'test') setTested({ ruleId: rule.id, failed: error.message });
      else setNotice({ tone: 'error', text: error.message });
    },
  });

  const items = rules.data ?? [];
  return (
    <>
      <div className="toolbar">
        <div>
          <h2 className="section-title">Notification rules</h2>
          <p className="muted">Where this tenant is told when a scan finishes or an issue opens, resolves or reopens.</p>
        </div>
        <button type="button" className="button button-primary" onClick={() => setEditing({ mode: 'create' })}>
          New rule
        </button>
      </div>
      <NoticeSlot notice={notice} />
      {rules.isPending ? (
        <Loading label="Loading notification rules…" />
      ) : rules.isError ? (
        <ErrorState error={rules.error} retry={() => void rules.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title="No notification rules yet">
          <p className="muted">Create one with New rule: a webhook, a Slack channel or an email address.</p>
        </EmptyState>
      ) : (
        <ul className="rules" aria-label="Notification rules">
          {items.map((rule) => (
            <RuleCard
              key={rule.id}
              rule={rule}
              busy={act.isPending}
              testing={act.isPending && act.variables?.rule.id === rule.id && act.variables.action === 'test'}
              tested={tested?.ruleId === rule.id ? tested : null}
              confirming={confirming === rule.id}
              onToggle={() => act.mutate({ rule, action: 'toggle' })}
              onTest={() => act.mutate({ rule, action: 'test' })}
              onEdit={() => setEditing({ mode: 'edit', rule })}
              onAskDelete={() => setConfirming(rule.id)}
              onCancelDelete={() => setConfirming(null)}
              onConfirmDelete={() => {
                setConfirming(null);
                act.mutate({ rule, action: 'delete' });
              }}
            />
          ))}
        </ul>
      )}
      <Dialog
        title={
          editing?.mode === 'edit' ? `Edit ${editing.rule.name}` : editing?.mode === 'secret' ? 'Webhook secret' : 'New notification rule'
        }
        open={editing !== null}
        onClose={() => setEditing(null)}
      >
        {editing?.mode === 'secret' ? (
          <SecretOnce created={editing.created} onDone={() => setEditing(null)} />
        ) : (
          editing && (
            <NotificationRuleForm
              key={editing.mode === 'edit' ? editing.rule.id : 'new'}
              rule={editing.mode === 'edit' ? editing.rule : undefined}
              onCreated={(created) => {
                setNotice({ tone: 'ok', text: `${created.rule.name} was created.` });
                void refresh();
                // A webhook's secret is in this answer only: show it now, or never.
                setEditing(created.secret ? { mode: 'secret', created } : null);
              }}
              onSaved={(saved) => {
                setEditing(null);
                setNotice({ tone: 'ok', text: `${saved.name} was saved.` });
                void refresh();
              }}
              onCancel={() => setEditing(null)}
            />
          )
        )}
      </Dialog>
    </>
  );
}

/** The one time a webhook's signing secret is shown: copy it now, it is never readable again. */
function SecretOnce({ created, onDone }: { created: Created; onDone: () => void }) {
  const [copied, setCopied] = useState<'yes' | 'no' | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  useEffect(() => inputRef.current?.select(), []);
  async function copy() {
    try {
      await navigator.clipboard.writeText(created.secret ?? '');
      setCopied('yes');
    } catch {
      // No clipboard permission (an insecure origin, a policy): the text is selected for Ctrl+C.
      inputRef.current?.select();
      setCopied('no');
    }
  }
  return (
    <div className="form secret-once">
      <p className="notice notice-warning">
        <strong>Copy this secret now: you won't see it again.</strong> The service keeps it only to sign deliveries; no page or API call
        shows it after you close this.
      </p>
      <div className="field">
        <label htmlFor="webhook-secret">Signing secret of {created.rule.name}</label>
        <div className="secret-row">
          <input id="webhook-secret" ref={inputRef} className="mono" readOnly value={created.secret ?? ''} spellCheck={false} />
          <button type="button" className="button button-secondary" onClick={() => void copy()}>
            Copy
          </button>
        </div>
        <p className="hint" aria-live="polite">
          {copied === 'yes'
            ? 'Copied to the clipboard.'
            : copied === 'no'
              ? 'Could not reach the clipboard: the secret is selected, press Ctrl+C (⌘C).'
              : ''}
        </p>
      </div>
      <p className="hint">
        Verify each delivery: <code>X-Signature-256</code> is <code>sha256=</code> followed by the hex HMAC-SHA256 of the raw body with this
        secret; dedupe on <code>X-Event-Id</code>.
      </p>
      <div className="form-actions">
        <button type="button" className="button button-primary" onClick={onDone}>
          I have copied it
        </button>
      </div>
    </div>
  );
}

function destinationOf(rule: NotificationRule): string {
  if (rule.kind === 'email') return rule.address ?? '';
  return rule.url ?? '';
}

/** One rule: what it sends where, its switch, Send test (with what happened), Edit, Delete with a confirmation. */
function RuleCard({
  rule,
  busy,
  testing,
  tested,
  confirming,
  onToggle,
  onTest,
  onEdit,
  onAskDelete,
  onCancelDelete,
  onConfirmDelete,
}: {
  rule: NotificationRule;
  busy: boolean;
  testing: boolean;
  tested: TestOutcome | null;
  confirming: boolean;
  onToggle: () => void;
  onTest: () => void;
  onEdit: () => void;
  onAskDelete: () => void;
  onCancelDelete: () => void;
  onConfirmDelete: () => void;
}) {
  const schedules = useSchedules();
  const nameId = `rule-${rule.id}`;
  const { cancelRef, openerRef: deleteRef } = useConfirmFocus(confirming);
  const scheduleNames = rule.schedule_ids?.map((id) => schedules.data?.find((schedule) => schedule.id === id)?.name ?? id);
  return (
    <li className="card rule" aria-labelledby={nameId}>
      <div className="rule-head">
        <h3 id={nameId} className="rule-name">
          {rule.name}
        </h3>
        <span className="badge badge-info">{KIND_LABELS[rule.kind]}</span>
        <span className="rule-switch-label" aria-hidden="true">
          {rule.enabled ? 'Enabled' : 'Disabled'}
        </span>
        <button
          type="button"
          role="switch"
          aria-checked={rule.enabled}
          aria-label="Enabled"
          aria-describedby={nameId}
          className="switch rule-switch"
          disabled={busy}
          onClick={onToggle}
        >
          <span className="switch-thumb" aria-hidden="true" />
        </button>
      </div>
      <dl className="rule-facts">
        <div>
          <dt>{rule.kind === 'email' ? 'To' : 'URL'}</dt>
          <dd className="mono">{destinationOf(rule)}</dd>
        </div>
        <div>
          <dt>Events</dt>
          <dd>{rule.events.map((event) => EVENT_LABELS[event]).join(', ')}</dd>
        </div>
        <div>
          <dt>Issues from</dt>
          <dd>
            {rule.min_severity === 'info'
              ? 'Every severity'
              : `${rule.min_severity[0].toUpperCase()}${rule.min_severity.slice(1)} and above`}
          </dd>
        </div>
        <div>
          <dt>Delivery</dt>
          <dd>{DELIVERY_LABELS[rule.delivery]}</dd>
        </div>
        <div>
          <dt>Scan types</dt>
          <dd>{rule.scan_types ? rule.scan_types.map((type) => scanTypes[type].label).join(', ') : 'All'}</dd>
        </div>
        <div>
          <dt>Schedules</dt>
          <dd>{scheduleNames ? scheduleNames.join(', ') : 'All scans'}</dd>
        </div>
      </dl>
      <div className="rule-actions">
        <button type="button" className="button button-secondary button-small" aria-describedby={nameId} disabled={busy} onClick={onTest}>
          {testing ? 'Sending…' : 'Send test'}
        </button>
        <button type="button" className="button button-secondary button-small" aria-describedby={nameId} onClick={onEdit}>
          Edit
        </button>
        <button
          ref={deleteRef}
          type="button"
          className="button button-danger-ghost button-small"
          aria-describedby={nameId}
          aria-expanded={confirming}
          aria-controls={`confirm-${rule.id}`}
          onClick={confirming ? onCancelDelete : onAskDelete}
        >
          Delete
        </button>
      </div>
      <div role="status" aria-label={`Test of ${rule.name}`} className="rule-test">
        {tested && <TestResult outcome={tested} kind={rule.kind} />}
      </div>
      {confirming && (
        <InlineConfirm
          id={`confirm-${rule.id}`}
          question={`Delete ${rule.name}?`}
          confirmLabel="Delete rule"
          cancelRef={cancelRef}
          onCancel={onCancelDelete}
          onConfirm={onConfirmDelete}
        >
          Delete <strong>{rule.name}</strong>? Nothing more is sent to it; deliveries still queued for it are dropped.
        </InlineConfirm>
      )}
    </li>
  );
}

/** What one test delivery did: delivered or not, the endpoint's HTTP status, the error in words. */
function TestResult({ outcome, kind }: { outcome: TestOutcome; kind: NotificationRule['kind'] }) {
  if ('failed' in outcome) return <p className="notice notice-error">The test could not be sent: {outcome.failed}</p>;
  const { delivered, status_code: status, error, event_id: eventId } = outcome.result;
  return (
    <div className={`notice ${delivered ? 'notice-ok' : 'notice-error'}`}>
      <p className="rule-test-head">{delivered ? 'Test delivered.' : 'Test not delivered.'}</p>
      <dl className="rule-test-facts">
        <div>
          <dt>Delivered</dt>
          <dd>{delivered ? 'Yes' : 'No'}</dd>
        </div>
        <div>
          <dt>HTTP status</dt>
          <dd>{status ?? (kind === 'email' ? 'None (email)' : 'None: no HTTP answer')}</dd>
        </div>
        <div>
          <dt>Error</dt>
          <dd>{error ?? 'None'}</dd>
        </div>
        <div>
          <dt>Event id</dt>
          <dd className="mono">{eventId}</dd>
        </div>
      </dl>
    </div>
  );
}
