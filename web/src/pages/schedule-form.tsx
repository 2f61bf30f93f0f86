import { useMutation } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { CADENCES, Schedule, type Cadence } from '../../../shared/domain/schedule.ts';
import { apexDomain } from '../../../shared/domain/apex-domain.ts';
import { targetRulesWith } from '../../../shared/domain/scan-targets.ts';
import { targetPolicyOf } from '../../../shared/domain/scan-type-list.ts';
import { scanTypes, type ScanType } from '../../../shared/domain/scan-types.ts';
import { api } from '../api.ts';
import { formatInZone, previewCadence, timeZones } from '../cadence.ts';
import { Field } from '../components.tsx';
import { useFormErrors } from '../form-errors.ts';
import { useScanTypes } from '../queries.ts';
import { ScopeFields, ScopeSummary, scopeControlId, useCredentialChoices } from '../scope-form.tsx';
import { CredentialTargetSelect } from '../credential-target.tsx';
import { draftOf, scopeErrorOf, scopeFieldsOf, scopeFromDraft, type ScopeDraft } from '../scope-schema.ts';

const CADENCE_LABELS: Record<Cadence, string> = {
  daily: 'Daily (02:00 UTC)',
  weekly: 'Weekly (Monday 03:00 UTC)',
  monthly: 'Monthly (1st, 04:00 UTC)',
  custom: 'Custom (cron)',
};

/** Where a server field lands in this form (a schema option under `scope.<key>`); anything else is shown above the buttons. */
function formFieldOf(field: string, optionKeys: ReadonlySet<string>): string {
  const key = field.startsWith('scope.') ? field.slice('scope.'.length).split('.')[0] : '';
  if (optionKeys.has(key)) return `scope.${key}`;
  if (field.startsWith('scope.')) return field.slice('scope.'.length).split('.')[0];
  return field.split('.')[0];
}

/** The form's fields in page order, with their labels and control ids (the first invalid one gets focus). */
const FIELDS: ReadonlyArray<[field: string, label: string, id: string]> = [
  ['name', 'Name', 'f-name'],
  ['description', 'Description', 'f-description'],
  ['scan_type', 'Scan type', 'f-scan-type'],
  ['target', 'Target', 'f-target'],
  ['cadence', 'Cadence', 'f-cadence'],
  ['cron_expression', 'Cron expression', 'f-cron'],
  ['timezone', 'Timezone', 'f-timezone'],
];
const LABELS = new Map(FIELDS.map(([field, label]) => [field, label]));

/**
 * The prompt's and the API's target rules, the m365 one included (the PSL is in the bundle
 * already), under the deployment's target policy once GET /api/scan-types/ has said it.
 */
const defaultTargetRules = targetRulesWith(apexDomain);

/**
 * Create or edit a schedule: one POST or one PATCH. What the browser can check (a name, the
 * target's rule, the cron and zone through the server's own conversion) is checked before sending
 * and after the first attempt as you type; the server's field errors land under their field and
 * disappear once that field changes. Focus goes to the first invalid field.
 */
export function ScheduleForm({
  schedule,
  onDone,
  onCancel,
}: {
  schedule?: Schedule;
  onDone: (saved: Schedule) => void;
  onCancel: () => void;
}) {
  const scanTypeList = useScanTypes();
  const offered = useMemo(
    () =>
      (scanTypeList.data?.items ?? []).filter((type) => type.runner_available || type.value === schedule?.scan_type).map((type) => type),
    [scanTypeList.data, schedule?.scan_type],
  );
  const targetRules = useMemo(
    () => (scanTypeList.data ? targetRulesWith(apexDomain, targetPolicyOf(scanTypeList.data.target_policy)) : defaultTargetRules),
    [scanTypeList.data],
  );
  const [name, setName] = useState(schedule?.name ?? '');
  const [description, setDescription] = useState(schedule?.description ?? '');
  const [chosenType, setScanType] = useState<ScanType | null>(schedule?.scan_type ?? null);
  const scanType: ScanType | null = chosenType ?? offered.find((type) => type.runner_available)?.value ?? null;
  const [target, setTarget] = useState(schedule?.target ?? '');
  const [cadence, setCadence] = useState<Cadence>(schedule?.cadence ?? 'daily');
  const [cron, setCron] = useState(schedule?.cron_expression ?? '');
  const [timezone, setTimezone] = useState(schedule?.cadence === 'custom' ? schedule.timezone : 'UTC');
  // Every type's options from its engine's scope schema (scope-schema.ts), a draft per type. Artifact
  // fields (email_security's uploaded reports) are not typed: a schedule keeps those it has.
  const scopeFields = useMemo(() => {
    const engine = offered.find((type) => type.value === scanType)?.engine;
    return scanType === null ? [] : scopeFieldsOf(engine?.scope_schema, Object.keys(engine?.artifact_fields ?? {}));
  }, [offered, scanType]);
  const [drafts, setDrafts] = useState<Record<string, ScopeDraft>>({});
  const offeredEngine = offered.find((type) => type.value === scanType)?.engine;
  const credentials = useCredentialChoices(offeredEngine?.credential_kinds);
  const draft = (scanType && drafts[scanType]) ?? draftOf(scopeFields, scanType === schedule?.scan_type ? schedule?.scope : {});
  const fromDraft = scopeFromDraft(scopeFields, draft);
  const optionKeys = new Set(scopeFields.map((f) => f.key));
  const fields = [...FIELDS, ...scopeFields.map((f) => [`scope.${f.key}`, f.label, scopeControlId('f', f.key)] as const)];
  const [attempted, setAttempted] = useState(false);
  const zones = useMemo(timeZones, []);
  const preview = useMemo(() => previewCadence(cadence, cron, timezone, new Date()), [cadence, cron, timezone]);

  const values: Record<string, unknown> = {
    name,
    description,
    scan_type: scanType,
    target,
    cadence,
    cron_expression: cron,
    timezone,
    ...Object.fromEntries(scopeFields.map((f) => [`scope.${f.key}`, draft[f.key]])),
  };

  // What the browser knows before sending. The cron and zone speak as soon as something is typed
  // (the preview's own verdict); the rest after the first attempt to send.
  const clientErrors: Record<string, string | undefined> = {};
  if (attempted && name.trim() === '') clientErrors.name = 'Name is required.';
  if (attempted && scanType === null) clientErrors.scan_type = 'Scan type: this deployment has no scanner to schedule.';
  if (attempted && scanType !== null) {
    const checked = target.trim() === '' ? { ok: false as const, message: 'is required' } : targetRules[scanType](target.trim());
    if (!checked.ok) clientErrors.target = `Target ${checked.message}.`;
  }
  if (cadence === 'custom' && !preview.ok && (attempted || (preview.field === 'cron_expression' ? cron : timezone).trim() !== '')) {
    clientErrors[preview.field] = `${LABELS.get(preview.field)} ${preview.message}.`;
  }
  if (attempted) {
    const optionError = scopeErrorOf(scopeFields, fromDraft.issues);
    for (const f of scopeFields) clientErrors[`scope.${f.key}`] = optionError(f.key);
  }
  const { formRef, errorOf, formError, control, field, begin, stop, sending, refuse } = useFormErrors({
    fields,
    values,
    clientError: (field) => clientErrors[field],
    formFieldOf: (serverField) => formFieldOf(serverField, optionKeys),
  });

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      schedule
        ? api(`/api/scans/schedules/${schedule.id}/`, Schedule, { method: 'PATCH', body })
        : api('/api/scans/schedules/', Schedule, { method: 'POST', body }),
    onSuccess: onDone,
    onError: refuse,
  });

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    begin();
    // The same checks as the render above, on this attempt's values (state is not updated yet).
    const blocked =
      name.trim() === '' ||
      scanType === null ||
      target.trim() === '' ||
      !targetRules[scanType](target.trim()).ok ||
      (cadence === 'custom' && !preview.ok) ||
      fromDraft.issues.length > 0;
    if (blocked || scanType === null) {
      stop();
      return;
    }
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
    if (scopeFields.length) {
      // Keys the form does not offer (the backfill's tags, uploaded files' ids) stay as they were.
      const kept =
        schedule?.scan_type === scanType ? Object.fromEntries(Object.entries(schedule.scope).filter(([key]) => !optionKeys.has(key))) : {};
      body.scope = { ...kept, ...fromDraft.scope };
    } else if (schedule && schedule.scan_type !== scanType) body.scope = {};
    sending(values);
    save.mutate(body);
  }

  return (
    <form className="form" onSubmit={onSubmit} noValidate ref={formRef}>
      <Field {...field('name')}>
        <input {...control('name')} value={name} onChange={(e) => setName(e.target.value)} maxLength={200} required />
      </Field>
      <Field {...field('description')}>
        <textarea
          {...control('description')}
          rows={2}
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          maxLength={2000}
        />
      </Field>
      <div className="field-row">
        <Field {...field('scan_type')}>
          <select
            {...control('scan_type', 'scan-type-hint')}
            value={scanType ?? ''}
            onChange={(e) => setScanType(e.target.value as ScanType)}
          >
            {offered.map((type) => (
              <option key={type.value} value={type.value}>
                {type.label}
                {type.runner_available ? '' : ' (no runner in this deployment)'}
              </option>
            ))}
          </select>
          <p id="scan-type-hint" className="hint">
            {scanTypeList.isPending
              ? 'Loading the scan types…'
              : scanTypeList.isError
                ? `Could not load the scan types: ${scanTypeList.error.message}`
                : 'Only the scan types this deployment can run.'}
          </p>
        </Field>
        <Field {...field('target')}>
          {offeredEngine?.target_kind === 'credential_alias' ? (
            <CredentialTargetSelect
              id={control('target').id ?? 'f-target'}
              invalid={control('target')['aria-invalid']}
              describedBy={control('target')['aria-describedby']}
              value={target}
              onChange={setTarget}
              choices={credentials}
              kinds={offeredEngine.credential_kinds ?? []}
            />
          ) : (
            <input
              {...control('target')}
              value={target}
              onChange={(e) => setTarget(e.target.value)}
              placeholder={scanType ? scanTypes[scanType].targetHint : undefined}
              required
              spellCheck={false}
              autoComplete="off"
            />
          )}
        </Field>
      </div>
      <Field {...field('cadence')}>
        <select {...control('cadence', 'cadence-preview')} value={cadence} onChange={(e) => setCadence(e.target.value as Cadence)}>
          {CADENCES.map((value) => (
            <option key={value} value={value}>
              {CADENCE_LABELS[value]}
            </option>
          ))}
        </select>
      </Field>
      {cadence === 'custom' && (
        <div className="field-row">
          <Field {...field('cron_expression')}>
            <input
              {...control('cron_expression', 'cron-help')}
              value={cron}
              onChange={(e) => setCron(e.target.value)}
              placeholder="30 9 * * 1-5"
              spellCheck={false}
              autoComplete="off"
              className="mono"
            />
            <p id="cron-help" className="hint">
              Five fields: minute hour day-of-month month day-of-week, or a macro such as @daily.
            </p>
          </Field>
          <Field {...field('timezone')}>
            <input
              {...control('timezone')}
              list="zones"
              value={timezone}
              onChange={(e) => setTimezone(e.target.value)}
              spellCheck={false}
              autoComplete="off"
            />
            <datalist id="zones">
              {zones.map((zone) => (
                <option key={zone} value={zone} />
              ))}
            </datalist>
          </Field>
        </div>
      )}
      <div id="cadence-preview" className="preview" aria-live="polite">
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
          <p className="muted">The preview appears once the cron expression and the timezone are valid.</p>
        )}
      </div>
      <ScopeFields
        idPrefix="f"
        fields={scopeFields}
        draft={draft}
        onChange={(next) => scanType && setDrafts({ ...drafts, [scanType]: next })}
        errorOf={(key) => errorOf(`scope.${key}`)}
        legend={`${offered.find((type) => type.value === scanType)?.label ?? ''} options`}
        credentials={credentials}
      />
      {schedule && (
        <p className="hint scope-now">
          Saved options: <ScopeSummary scope={schedule.scope} scanType={schedule.scan_type} />
        </p>
      )}
      {formError && (
        <p className="form-error" role="alert" tabIndex={-1}>
          {formError}
        </p>
      )}
      <div className="form-actions">
        <button type="button" className="button button-secondary" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="button button-primary" disabled={save.isPending || scanTypeList.isPending}>
          {schedule ? 'Save' : 'Create schedule'}
        </button>
      </div>
    </form>
  );
}
