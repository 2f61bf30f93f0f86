import { FieldError } from '../components.tsx';

export interface EmailOptionValues {
  reputation: boolean;
  discover: boolean;
  leak: boolean;
  /** Comma- or space-separated selectors as typed. */
  dkimSelectors: string;
}

/** The email_security scope (DESIGN §4) from the form's values; defaults are left out. */
export function emailScopeFrom(values: EmailOptionValues): Record<string, unknown> {
  const selectors = values.dkimSelectors.split(/[\s,]+/).filter(Boolean);
  return {
    ...(values.reputation ? {} : { reputation: false }),
    ...(values.discover ? { discover: true } : {}),
    ...(values.leak ? { leak: true } : {}),
    ...(selectors.length ? { dkim_selectors: selectors } : {}),
  };
}

/** Reputation, Discover, Leak and DKIM selectors: the email_security options (DESIGN §8). */
export function EmailOptions({
  values,
  onChange,
  errorOf,
  idPrefix = 'f',
}: {
  values: EmailOptionValues;
  onChange: (values: EmailOptionValues) => void;
  errorOf: (field: string) => string | undefined;
  idPrefix?: string;
}) {
  const check = (key: 'reputation' | 'discover' | 'leak', label: string, hint: string) => (
    <div className="check">
      <input
        id={`${idPrefix}-${key}`}
        type="checkbox"
        checked={values[key]}
        onChange={(e) => onChange({ ...values, [key]: e.target.checked })}
        aria-describedby={`${idPrefix}-${key}-hint`}
      />
      <label htmlFor={`${idPrefix}-${key}`}>{label}</label>
      <span id={`${idPrefix}-${key}-hint`} className="hint">
        {hint}
      </span>
      <FieldError id={`${idPrefix}-${key}-error`} message={errorOf(key)} />
    </div>
  );
  return (
    <fieldset className="fieldset">
      <legend>Email security options</legend>
      {check('reputation', 'Reputation', 'Block-lists and sender reputation (on by default).')}
      {check('discover', 'Discover', 'Find addresses and subdomains from CT logs and DNS.')}
      {check('leak', 'Leak', 'Breaches, code search and lookalike domains.')}
      <div className="field">
        <label htmlFor={`${idPrefix}-dkim`}>DKIM selectors</label>
        <input
          id={`${idPrefix}-dkim`}
          value={values.dkimSelectors}
          onChange={(e) => onChange({ ...values, dkimSelectors: e.target.value })}
          placeholder="selector1, google"
          spellCheck={false}
          autoComplete="off"
          aria-invalid={!!errorOf('dkim_selectors')}
          aria-describedby={errorOf('dkim_selectors') ? `${idPrefix}-dkim-error` : undefined}
        />
        <FieldError id={`${idPrefix}-dkim-error`} message={errorOf('dkim_selectors')} />
      </div>
    </fieldset>
  );
}
