import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { SEVERITIES, type Severity } from '../../../lib/severity.ts';
import { SlaSettings, SlaView } from '../../../shared/domain/sla.ts';
import { api, ApiError } from '../api.ts';
import { formatLocal } from '../cadence.ts';
import { ErrorState, Loading, SeverityBadge } from '../components.tsx';
import { useCan } from '../session.ts';

const LABELS: Record<Severity, string> = { critical: 'Critical', high: 'High', medium: 'Medium', low: 'Low', info: 'Info' };

type Typed = Record<Severity, string>;
const typedOf = (sla: SlaView): Typed =>
  Object.fromEntries(SEVERITIES.map((severity) => [severity, sla[severity] === null ? '' : String(sla[severity])])) as Typed;
/** The PUT body: an empty box is no due date; anything else goes as typed, for the schema to judge. */
const bodyOf = (typed: Typed) =>
  Object.fromEntries(SEVERITIES.map((severity) => [severity, typed[severity].trim() === '' ? null : Number(typed[severity].trim())]));

/**
 * Settings → SLA (DESIGN §15): days from an issue's first sighting to its due date, per severity.
 * One PUT of every severity; the API's own schema checks the form first, and what the server
 * refuses comes back under the field it names. Due dates follow a change at once.
 */
export function SlaSettingsPanel() {
  const sla = useQuery({ queryKey: ['sla'], queryFn: () => api('/api/settings/sla', SlaView) });
  const canEdit = useCan('admin');
  const queryClient = useQueryClient();
  const [typed, setTyped] = useState<Typed | null>(null);
  const [errors, setErrors] = useState<Partial<Record<Severity | 'form', string>>>({});
  const [saved, setSaved] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (sla.data && typed === null) setTyped(typedOf(sla.data));
  }, [sla.data, typed]);

  const save = useMutation({
    mutationFn: (body: unknown) => api('/api/settings/sla', SlaView, { method: 'PUT', body }),
    onSuccess: (stored) => {
      queryClient.setQueryData(['sla'], stored);
      void queryClient.invalidateQueries({ queryKey: ['issues'] });
      void queryClient.invalidateQueries({ queryKey: ['issue'] });
      setTyped(typedOf(stored));
      setSaved(true);
    },
    onError: (error) => {
      const next: typeof errors = {};
      if (error instanceof ApiError && error.details.length > 0)
        for (const detail of error.details)
          if ((SEVERITIES as readonly string[]).includes(detail.field))
            next[detail.field as Severity] = `${LABELS[detail.field as Severity]} ${detail.message}.`;
          else next.form = `${detail.field} ${detail.message}.`;
      else next.form = error instanceof Error ? error.message : String(error);
      setErrors(next);
      focusFirst(next);
    },
  });

  function focusFirst(found: typeof errors) {
    const first = SEVERITIES.find((severity) => found[severity]);
    if (first) formRef.current?.querySelector<HTMLElement>(`#sla-${first}`)?.focus();
    else formRef.current?.querySelector<HTMLElement>('.form-error')?.focus();
  }

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!typed) return;
    setSaved(false);
    const body = bodyOf(typed);
    const checked = SlaSettings.safeParse(body);
    if (!checked.success) {
      const next: typeof errors = {};
      for (const issue of checked.error.issues) {
        const field = String(issue.path[0] ?? '') as Severity;
        next[field] ??= `${LABELS[field] ?? field} ${issue.message}.`;
      }
      setErrors(next);
      focusFirst(next);
      return;
    }
    setErrors({});
    save.mutate(checked.data);
  }

  if (sla.isPending || (sla.data && typed === null)) return <Loading label="Loading the SLA…" />;
  if (sla.isError) return <ErrorState error={sla.error} retry={() => void sla.refetch()} />;
  const current = sla.data;
  return (
    <section aria-labelledby="sla-title">
      <h2 id="sla-title" className="section-title">
        Issue SLA
      </h2>
      <p className="muted">
        Days to fix an issue, counted from when it was first seen. An issue still open after its due date is overdue (the Issues page
        filters them). Leave a severity empty for no due date. A change applies to every issue at once.
      </p>
      {canEdit ? (
        <form className="form sla-form" noValidate onSubmit={onSubmit} ref={formRef} aria-label="Issue SLA">
          <div className="sla-fields">
            {SEVERITIES.map((severity) => (
              <div className="field" key={severity}>
                <label htmlFor={`sla-${severity}`}>{LABELS[severity]} (days)</label>
                <input
                  id={`sla-${severity}`}
                  type="number"
                  inputMode="numeric"
                  min={1}
                  max={3650}
                  step={1}
                  placeholder="no due date"
                  value={typed![severity]}
                  aria-invalid={errors[severity] ? true : undefined}
                  aria-describedby={errors[severity] ? `sla-${severity}-error` : undefined}
                  onChange={(event) => {
                    setSaved(false);
                    setTyped({ ...typed!, [severity]: event.target.value });
                  }}
                />
                {errors[severity] && (
                  <p id={`sla-${severity}-error`} className="field-error">
                    {errors[severity]}
                  </p>
                )}
              </div>
            ))}
          </div>
          {errors.form && (
            <p className="form-error" role="alert" tabIndex={-1}>
              {errors.form}
            </p>
          )}
          <div className="form-actions">
            <button type="submit" className="button button-primary" disabled={save.isPending}>
              {save.isPending ? 'Saving…' : 'Save SLA'}
            </button>
          </div>
        </form>
      ) : (
        <dl className="facts">
          {SEVERITIES.map((severity) => (
            <div key={severity}>
              <dt>
                <SeverityBadge severity={severity} />
              </dt>
              <dd>{current[severity] === null ? 'No due date' : `${current[severity]} days`}</dd>
            </div>
          ))}
        </dl>
      )}
      <div aria-live="polite" className="notice-slot">
        {saved && <p className="notice notice-ok">SLA saved. Every issue's due date follows it.</p>}
      </div>
      <p className="muted">
        {current.updated_at
          ? `Last set ${formatLocal(current.updated_at)}${current.updated_by ? ` by ${current.updated_by}` : ''}.`
          : 'No SLA is set yet: no issue has a due date.'}
      </p>
    </section>
  );
}
