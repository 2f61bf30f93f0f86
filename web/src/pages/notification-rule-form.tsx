import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import {
  CreatedNotificationRule,
  CreateNotificationRule,
  DELIVERIES,
  EVENT_TYPES,
  NOTIFICATION_KINDS,
  NotificationRule,
  UpdateNotificationRule,
  type Delivery,
  type EventType,
  type NotificationKind,
} from '../../../shared/domain/notification.ts';
import { SEVERITIES, type Severity } from '../../../lib/severity.ts';
import { scanTypes, type ScanType } from '../../../shared/domain/scan-types.ts';
import { api } from '../api.ts';
import { Field, FieldGroup } from '../components.tsx';
import { fieldSentence } from '../field-errors.ts';
import { useFormErrors } from '../form-errors.ts';
import { displayTarget } from '../idn.ts';
import { useScanTypes, useSchedules } from '../queries.ts';

export const KIND_LABELS: Record<NotificationKind, string> = { webhook: 'Webhook', slack: 'Slack', email: 'Email' };
export const EVENT_LABELS: Record<EventType, string> = {
  'scan.finished': 'Scan finished',
  'issue.opened': 'Issue opened',
  'issue.resolved': 'Issue resolved',
  'issue.reopened': 'Issue reopened',
};
/** How a rule's messages go out (DESIGN §15, docs/digests-and-sla.md). */
export const DELIVERY_LABELS: Record<Delivery, string> = {
  // Not "Hourly digest": playwright and people search labels by substring, and "hourly" holds "URL".
  each: 'Immediately, one message per event',
  digest_hourly: 'One digest an hour',
  digest_daily: 'One digest a day (UTC)',
};
const SEVERITY_LABELS: Record<Severity, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' };

/** The form's fields in page order: labels for messages, control ids for focus. */
const FIELDS: ReadonlyArray<[field: string, label: string, id: string]> = [
  ['name', 'Name', 'n-name'],
  ['kind', 'Kind', 'n-kind-webhook'],
  ['url', 'URL', 'n-url'],
  ['address', 'Email address', 'n-address'],
  ['events', 'Events', 'n-event-scan.finished'],
  ['min_severity', 'Minimum severity', 'n-severity'],
  ['delivery', 'Delivery', 'n-delivery-each'],
  ['scan_types', 'Scan types', 'n-scan-types-all'],
  ['schedule_ids', 'Schedules', 'n-schedules-all'],
  ['enabled', 'Enabled', 'n-enabled'],
];
const LABELS = new Map(FIELDS.map(([field, label]) => [field, label]));

/** What was created: the rule, and for a webhook the secret the page shows this once. */
export type Created = { rule: NotificationRule; secret: string | null };

/**
 * Create or edit a notification rule: one POST or one PATCH. The body is checked with the API's
 * own schema before it is sent (a malformed URL or address never leaves the browser); what only
 * the server knows (the endpoint policy: https, no private or loopback address) comes back under
 * its field. The kind is fixed once created.
 */
export function NotificationRuleForm({
  rule,
  onCreated,
  onSaved,
  onCancel,
}: {
  rule?: NotificationRule;
  onCreated: (created: Created) => void;
  onSaved: (saved: NotificationRule) => void;
  onCancel: () => void;
}) {
  const scanTypeList = useScanTypes();
  const schedules = useSchedules();
  const [name, setName] = useState(rule?.name ?? '');
  const [kind, setKind] = useState<NotificationKind>(rule?.kind ?? 'webhook');
  const [url, setUrl] = useState(rule?.url ?? '');
  const [address, setAddress] = useState(rule?.address ?? '');
  const [events, setEvents] = useState<EventType[]>(rule?.events ?? ['issue.opened', 'issue.reopened']);
  const [minSeverity, setMinSeverity] = useState<Severity>(rule?.min_severity ?? 'high');
  const [chosenTypes, setChosenTypes] = useState<ScanType[] | null>(rule?.scan_types ?? null);
  const [chosenSchedules, setChosenSchedules] = useState<string[] | null>(rule?.schedule_ids ?? null);
  const [delivery, setDelivery] = useState<Delivery>(rule?.delivery ?? 'each');
  const [enabled, setEnabled] = useState(rule?.enabled ?? true);
  const [attempted, setAttempted] = useState(false);
  const wantsUrl = kind !== 'email';

  const values: Record<string, unknown> = {
    name,
    kind,
    url,
    address,
    events,
    min_severity: minSeverity,
    delivery,
    scan_types: chosenTypes,
    schedule_ids: chosenSchedules,
    enabled,
  };

  /** The request body: only what this kind takes; a filter with nothing chosen is no filter. */
  function bodyOf(): Record<string, unknown> {
    const body: Record<string, unknown> = {
      name: name.trim(),
      ...(wantsUrl ? { url: url.trim() } : { address: address.trim() }),
      events,
      min_severity: minSeverity,
      delivery,
      enabled,
    };
    if (rule) {
      body.scan_types = chosenTypes && chosenTypes.length > 0 ? chosenTypes : null;
      body.schedule_ids = chosenSchedules && chosenSchedules.length > 0 ? chosenSchedules : null;
      return body;
    }
    if (chosenTypes && chosenTypes.length > 0) body.scan_types = chosenTypes;
    if (chosenSchedules && chosenSchedules.length > 0) body.schedule_ids = chosenSchedules;
    return { kind, ...body };
  }

  // The API's own schema, run in the browser: its messages, rephrased, under their fields.
  const clientIssues: Record<string, string[]> = {};
  if (attempted) {
    const checked = rule ? UpdateNotificationRule.safeParse(bodyOf()) : CreateNotificationRule.safeParse(bodyOf());
    if (!checked.success)
      for (const issue of checked.error.issues) {
        const field = String(issue.path[0] ?? '');
        (clientIssues[field] ??= []).push(issue.message);
      }
    if (chosenTypes !== null && chosenTypes.length === 0) (clientIssues.scan_types ??= []).push('needs at least one, or All scan types');
    if (chosenSchedules !== null && chosenSchedules.length === 0)
      (clientIssues.schedule_ids ??= []).push('needs at least one, or All schedules');
  }
  const { formRef, formError, described, control, field, group, begin, stop, sending, refuse } = useFormErrors({
    fields: FIELDS,
    values,
    clientError: (field) => (clientIssues[field] ? fieldSentence(LABELS.get(field) ?? field, clientIssues[field]) : undefined),
    formFieldOf: (field) => field.split('.')[0],
  });

  const save = useMutation({
    mutationFn: async (body: Record<string, unknown>): Promise<Created> => {
      if (rule) return { rule: await api(`/api/notifications/${rule.id}/`, NotificationRule, { method: 'PATCH', body }), secret: null };
      const { secret, ...created } = await api('/api/notifications/', CreatedNotificationRule, { method: 'POST', body });
      return { rule: created, secret: secret ?? null };
    },
    onSuccess: (result) => (rule ? onSaved(result.rule) : onCreated(result)),
    onError: refuse,
  });

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    begin();
    const body = bodyOf();
    const checked = rule ? UpdateNotificationRule.safeParse(body) : CreateNotificationRule.safeParse(body);
    if (!checked.success || chosenTypes?.length === 0 || chosenSchedules?.length === 0) {
      stop();
      return;
    }
    sending(values);
    save.mutate(body);
  }

  const offeredTypes = (scanTypeList.data?.items ?? [])
    .filter((type) => type.runner_available || chosenTypes?.includes(type.value))
    .map((type) => type.value);
  const toggle = <T,>(list: T[], value: T, on: boolean) => (on ? [...list, value] : list.filter((item) => item !== value));

  return (
    <form className="form" onSubmit={onSubmit} noValidate ref={formRef}>
      <Field {...field('name')}>
        <input {...control('name')} value={name} onChange={(e) => setName(e.target.value)} maxLength={200} />
      </Field>
      <FieldGroup {...group('kind')}>
        <div className="choices">
          {NOTIFICATION_KINDS.map((value) => (
            <label key={value} className="check">
              <input
                type="radio"
                id={`n-kind-${value}`}
                name="kind"
                value={value}
                checked={kind === value}
                disabled={rule !== undefined && rule.kind !== value}
                onChange={() => setKind(value)}
              />
              {KIND_LABELS[value]}
            </label>
          ))}
        </div>
        {rule && <p className="hint">The kind of a rule is fixed; create another rule for another kind.</p>}
      </FieldGroup>
      {wantsUrl ? (
        <Field {...field('url')}>
          <input
            {...control('url', 'n-url-hint')}
            type="url"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
            placeholder={kind === 'slack' ? 'https://hooks.slack.com/services/…' : 'https://hooks.example.com/scan-service'}
            spellCheck={false}
            autoComplete="off"
            className="mono"
          />
          <p id="n-url-hint" className="hint">
            {kind === 'slack'
              ? "The channel's incoming-webhook URL."
              : 'An https address that accepts a POST of JSON. Each delivery is signed: X-Signature-256 is sha256= and the HMAC-SHA256 of the body with the secret shown once after you create the rule.'}
          </p>
        </Field>
      ) : (
        <Field {...field('address')}>
          <input
            {...control('address')}
            type="email"
            value={address}
            onChange={(e) => setAddress(e.target.value)}
            placeholder="security@example.com"
            spellCheck={false}
            autoComplete="off"
          />
        </Field>
      )}
      <FieldGroup {...group('events')}>
        <div className="choices">
          {EVENT_TYPES.map((value) => (
            <label key={value} className="check">
              <input
                type="checkbox"
                id={`n-event-${value}`}
                checked={events.includes(value)}
                onChange={(e) => setEvents(EVENT_TYPES.filter((type) => (type === value ? e.target.checked : events.includes(type))))}
              />
              {EVENT_LABELS[value]}
            </label>
          ))}
        </div>
      </FieldGroup>
      <Field {...field('min_severity')}>
        <select
          id="n-severity"
          value={minSeverity}
          onChange={(e) => setMinSeverity(e.target.value as Severity)}
          aria-describedby={described('min_severity', 'n-severity-hint')}
        >
          {SEVERITIES.map((value) => (
            <option key={value} value={value}>
              {SEVERITY_LABELS[value]}
              {value === 'info' ? ' (everything)' : ' and above'}
            </option>
          ))}
        </select>
        <p id="n-severity-hint" className="hint">
          Issue events below it are not sent. Scan finished has no severity and is always sent.
        </p>
      </Field>
      <FieldGroup {...group('delivery')}>
        <div className="choices">
          {DELIVERIES.map((value) => (
            <label key={value} className="check">
              <input
                type="radio"
                id={`n-delivery-${value}`}
                name="delivery"
                value={value}
                checked={delivery === value}
                aria-describedby="n-delivery-hint"
                onChange={() => setDelivery(value)}
              />
              {DELIVERY_LABELS[value]}
            </label>
          ))}
        </div>
        <p id="n-delivery-hint" className="hint">
          A digest sends one message for all of the period's events (counts by type and severity, then the most severe first) a few minutes
          after the hour, or after midnight UTC for a daily digest, instead of one message per event.
        </p>
      </FieldGroup>
      <FieldGroup {...group('scan_types')}>
        <div className="choices">
          <label className="check">
            <input
              type="checkbox"
              id="n-scan-types-all"
              checked={chosenTypes === null}
              onChange={(e) => setChosenTypes(e.target.checked ? null : [])}
            />
            All scan types
          </label>
          {chosenTypes !== null &&
            offeredTypes.map((value) => (
              <label key={value} className="check">
                <input
                  type="checkbox"
                  checked={chosenTypes.includes(value)}
                  onChange={(e) => setChosenTypes(toggle(chosenTypes, value, e.target.checked))}
                />
                {scanTypes[value].label}
              </label>
            ))}
        </div>
      </FieldGroup>
      <FieldGroup {...group('schedule_ids')}>
        <div className="choices">
          <label className="check">
            <input
              type="checkbox"
              id="n-schedules-all"
              checked={chosenSchedules === null}
              onChange={(e) => setChosenSchedules(e.target.checked ? null : [])}
            />
            All scans, scheduled or not
          </label>
        </div>
        {chosenSchedules !== null && (
          <div className="choice-list" role="group" aria-label="Only scans of these schedules">
            {schedules.isPending ? (
              <p className="muted">Loading schedules…</p>
            ) : (schedules.data ?? []).length === 0 && chosenSchedules.length === 0 ? (
              <p className="muted">This tenant has no schedules yet.</p>
            ) : (
              [...(schedules.data ?? [])]
                .sort((a, b) => a.name.localeCompare(b.name))
                .map((schedule) => (
                  <label key={schedule.id} className="check">
                    <input
                      type="checkbox"
                      checked={chosenSchedules.includes(schedule.id)}
                      onChange={(e) => setChosenSchedules(toggle(chosenSchedules, schedule.id, e.target.checked))}
                    />
                    <span>
                      {schedule.name} <span className="muted">({displayTarget(schedule.target)})</span>
                    </span>
                  </label>
                ))
            )}
          </div>
        )}
      </FieldGroup>
      <label className="check">
        <input type="checkbox" id="n-enabled" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} />
        Enabled
      </label>
      {formError && (
        <p className="form-error" role="alert" tabIndex={-1}>
          {formError}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="button button-secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {rule ? 'Save' : 'Create rule'}
        </button>
      </div>
    </form>
  );
}
