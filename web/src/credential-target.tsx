import type { Ref } from 'react';
import type { CredentialChoice } from './scope-form.tsx';

/**
 * The target of a scan type whose target is a credential alias (nhi, DESIGN §20: the engine's
 * `target_kind` is `credential_alias`): a pick of the tenant's credentials of the engine's kinds,
 * never a free text a typo would turn into a 400.
 */
export function CredentialTargetSelect({
  id,
  value,
  onChange,
  choices,
  kinds,
  selectRef,
  invalid,
  describedBy,
}: {
  id: string;
  value: string;
  onChange: (alias: string) => void;
  choices: readonly CredentialChoice[] | undefined;
  kinds: readonly string[];
  selectRef?: Ref<HTMLSelectElement>;
  invalid?: boolean;
  describedBy?: string;
}) {
  const list = choices ?? [];
  const hintId = `${id}-choices-hint`;
  return (
    <>
      <select
        ref={selectRef}
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={invalid}
        aria-describedby={[describedBy, list.length === 0 ? hintId : undefined].filter(Boolean).join(' ') || undefined}
      >
        <option value="">{list.length === 0 ? 'No credential of these kinds' : 'Choose a credential'}</option>
        {list.map((choice) => (
          <option key={choice.alias} value={choice.alias}>
            {choice.alias} ({choice.kind})
          </option>
        ))}
      </select>
      {list.length === 0 && (
        <p id={hintId} className="hint">
          Add a credential of kind {kinds.join(', ')} in Settings → Credentials first.
        </p>
      )}
    </>
  );
}
