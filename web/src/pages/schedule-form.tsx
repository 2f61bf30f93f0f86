import { useMutation } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { CADENCES, Schedule, type Cadence } from '../../../shared/domain/schedule.ts';
import { SCAN_TYPES, scanTypes, type ScanType } from '../../../shared/domain/scan-types.ts';
import { api, ApiError, type FieldIssue } from '../api.ts';
import { formatInZone, previewCadence, timeZones } from '../cadence.ts';
import { FieldError } from '../components.tsx';
import { EmailOptions, emailScopeFrom, type EmailOptionValues } from './email-options.tsx';

const CADENCE_LABELS: Record<Cadence, string> = {
  daily: 'Daily (02:00 UTC)',
  weekly: 'Weekly (Monday 03:00 UTC)',
  monthly: 'Monthly (1st, 04:00 UTC)',
  custom: 'Custom (cron)',
};

/** Where a server field lands in this form; anything else is shown above the buttons. */
function formFieldOf(field: string): string {
  if (field.startsWith('scope.dkim_selectors')) return 'dkim_selectors';
  if (field.startsWith('scope.')) return field.slice('scope.'.length).split('.')[0];
  return field.split('.')[0];
}

const FORM_FIELDS = new Set([
  'name',
  'description',
  'scan_type',
  'target',
  'cadence',
  'cron_expression',
  'timezone',
  'reputation',
  'discover',
  'leak',
  'dkim_selectors',
]);

/** Create or edit a schedule: one POST or one PATCH; the server's field errors land under their field. */
export function ScheduleForm({
  schedule,
  onDone,
  onCancel,
}: {
  schedule?: Schedule;
  onDone: (saved: Schedule) => void;
  onCancel: () => void;
}) {
  const [name, setName] = useState(schedule?.name ?? '');
  const [description, setDescription] = useState(schedule?.description ?? '');
  const [scanType, setScanType] = useState<ScanType>(schedule?.scan_type ?? 'email_security');
  const [target, setTarget] = useState(schedule?.target ?? '');
  const [cadence, setCadence] = useState<Cadence>(schedule?.cadence ?? 'daily');
  const [cron, setCron] = useState(schedule?.cron_expression ?? '');
  const [timezone, setTimezone] = useState(schedule?.cadence === 'custom' ? schedule.timezone : 'UTC');
  const [email, setEmail] = useState<EmailOptionValues>(() => ({
    reputation: schedule?.scope.reputation !== false,
    discover: schedule?.scope.discover === true,
    leak: schedule?.scope.leak === true,
    dkimSelectors: Array.isArray(schedule?.scope.dkim_selectors) ? (schedule.scope.dkim_selectors as string[]).join(', ') : '',
  }));
  const [issues, setIssues] = useState<FieldIssue[]>([]);
  const [formError, setFormError] = useState<string | null>(null);
  const zones = useMemo(timeZones, []);
  const preview = useMemo(() => previewCadence(cadence, cron, timezone, new Date()), [cadence, cron, timezone]);

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      schedule
        ? api(`/api/scans/schedules/${schedule.id}/`, Schedule, { method: 'PATCH', body })
        : api('/api/scans/schedules/', Schedule, { method: 'POST', body }),
    onSuccess: onDone,
    onError: (error) => {
      if (error instanceof ApiError) {
        setIssues(error.details);
        const placed = error.details.filter((issue) => FORM_FIELDS.has(formFieldOf(issue.field)));
        const unplaced = error.details.filter((issue) => !FORM_FIELDS.has(formFieldOf(issue.field)));
        setFormError(
          unplaced.length > 0
            ? unplaced.map((issue) => `${issue.field} ${issue.message}`).join('; ')
            : placed.length === 0
              ? error.message
              : null,
        );
      } else {
        setFormError(error.message);
      }
    },
  });

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setIssues([]);
    setFormError(null);
    const custom = cadence === 'custom';
    const body: Record<string, unknown> = {
      name,
      description,
      scan_type: scanType,
      target,
      cadence,
      cron_expression: custom ? cron : null,
      timezone: custom ? timezone : 'UTC',
    };
    const otherScope = Object.fromEntries(
      Object.entries(schedule?.scope ?? {}).filter(([key]) => !['reputation', 'discover', 'leak', 'dkim_selectors'].includes(key)),
    );
    if (scanType === 'email_security') body.scope = { ...otherScope, ...emailScopeFrom(email) };
    else if (schedule && schedule.scan_type !== scanType) body.scope = {};
    save.mutate(body);
  }

  const errorOf = (field: string) => {
    const found = issues.filter((issue) => formFieldOf(issue.field) === field);
    return found.length ? found.map((issue) => issue.message).join('; ') : undefined;
  };
  const described = (field: string, ...others: string[]) =>
    [errorOf(field) ? `${field}-error` : '', ...others].filter(Boolean).join(' ') || undefined;

  return (
    <form className="form" onSubmit={onSubmit} noValidate>
      <div className="field">
        <label htmlFor="f-name">Name</label>
        <input
          id="f-name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          maxLength={200}
          required
          aria-invalid={!!errorOf('name')}
          aria-describedby={described('name')}
        />
        <FieldError id="name-error" message={errorOf('name')} />
      </div>
      <div className="field">
        <label htmlFor="f-description">Description</label>
        <textarea
          id="f-description"
          rows={2}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          maxLength={2000}
          aria-invalid={!!errorOf('description')}
          aria-describedby={described('description')}
        />
        <FieldError id="description-error" message={errorOf('description')} />
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor="f-scan-type">Scan type</label>
          <select
            id="f-scan-type"
            value={scanType}
            onChange={(e) => setScanType(e.target.value as ScanType)}
            aria-invalid={!!errorOf('scan_type')}
            aria-describedby={described('scan_type')}
          >
            {SCAN_TYPES.map((type) => (
              <option key={type} value={type}>
                {scanTypes[type].label}
              </option>
            ))}
          </select>
          <FieldError id="scan_type-error" message={errorOf('scan_type')} />
        </div>
        <div className="field">
          <label htmlFor="f-target">Target</label>
          <input
            id="f-target"
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            placeholder={scanTypes[scanType].targetHint}
            required
            spellCheck={false}
            autoComplete="off"
            aria-invalid={!!errorOf('target')}
            aria-describedby={described('target')}
          />
          <FieldError id="target-error" message={errorOf('target')} />
        </div>
      </div>
      <div className="field">
        <label htmlFor="f-cadence">Cadence</label>
        <select
          id="f-cadence"
          value={cadence}
          onChange={(e) => setCadence(e.target.value as Cadence)}
          aria-invalid={!!errorOf('cadence')}
          aria-describedby={described('cadence', 'cadence-preview')}
        >
          {CADENCES.map((value) => (
            <option key={value} value={value}>
              {CADENCE_LABELS[value]}
            </option>
          ))}
        </select>
        <FieldError id="cadence-error" message={errorOf('cadence')} />
      </div>
      {cadence === 'custom' && (
        <div className="field-row">
          <div className="field">
            <label htmlFor="f-cron">Cron expression</label>
            <input
              id="f-cron"
              value={cron}
              onChange={(e) => setCron(e.target.value)}
              placeholder="30 9 * * 1-5"
              spellCheck={false}
              autoComplete="off"
              className="mono"
              aria-invalid={!!errorOf('cron_expression')}
              aria-describedby={described('cron_expression', 'cron-help')}
            />
            <p id="cron-help" className="hint">
              Five fields: minute hour day-of-month month day-of-week, or a macro such as @daily.
            </p>
            <FieldError id="cron_expression-error" message={errorOf('cron_expression')} />
          </div>
          <div className="field">
            <label htmlFor="f-timezone">Timezone</label>
            <input
              id="f-timezone"
              list="zones"
              value={timezone}
              onChange={(e) => setTimezone(e.target.value)}
              spellCheck={false}
              autoComplete="off"
              aria-invalid={!!errorOf('timezone')}
              aria-describedby={described('timezone')}
            />
            <datalist id="zones">
              {zones.map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
            <FieldError id="timezone-error" message={errorOf('timezone')} />
          </div>
        </div>
      )}
      <div id="cadence-preview" className={`preview ${preview.ok ? '' : 'preview-invalid'}`} aria-live="polite">
        {preview.ok ? (
          <>
            <p className="preview-words">{preview.words}</p>
            <p className="preview-label">EventBridge</p>
            <ul className="preview-expressions">
              {preview.expressions.map((expression) => (
                <li key={expression}>
                  <code>{expression}</code>
                </li>
              ))}
            </ul>
            <p className="preview-label">Next five runs ({preview.timezone})</p>
            <ol className="preview-next">
              {preview.next.map((date) => (
                <li key={date.toISOString()}>
                  <time dateTime={date.toISOString()}>{formatInZone(date, preview.timezone)}</time>
                </li>
              ))}
            </ol>
          </>
        ) : (
          <p>
            {preview.field === 'cron_expression' ? 'Cron expression' : 'Timezone'} {preview.message}
          </p>
        )}
      </div>
      {scanType === 'email_security' && <EmailOptions values={email} onChange={setEmail} errorOf={errorOf} />}
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="button button-secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          {schedule ? 'Save' : 'Create schedule'}
        </button>
      </div>
    </form>
  );
}
