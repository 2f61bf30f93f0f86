import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { CREDENTIAL_KINDS, HOST_BOUND_KINDS } from '../../../lib/credential-kinds.ts';
import type { CredentialKind } from '../../../lib/engine-manifest.ts';
import { Credential } from '../../../shared/domain/credential-wire.ts';
import { api, ApiError } from '../api.ts';
import { formatShort } from '../cadence.ts';
import { Dialog, EmptyState, ErrorState, Field, Loading, type Notice, NoticeSlot } from '../components.tsx';
import { InlineConfirm, useConfirmFocus } from '../inline-confirm.tsx';
import { useCredentials } from '../queries.ts';
import { useCan } from '../session.ts';

export const KIND_LABELS: Record<CredentialKind, string> = {
  git_token: 'Git token',
  http_header: 'HTTP header',
  aws_access_key: 'AWS access key',
  github_token: 'GitHub token',
  gitlab_token: 'GitLab token',
  slack_token: 'Slack token',
  llm_api_key: 'LLM API key',
};

/** The fields of each kind's secret (DESIGN §16), in the order the form asks them; `secret` fields are masked. */
const SECRET_FIELDS: Record<CredentialKind, { name: string; label: string; secret: boolean; optional?: boolean }[]> = {
  git_token: [
    { name: 'token', label: 'Token', secret: true },
    { name: 'username', label: 'Username (optional; x-access-token by default)', secret: false, optional: true },
  ],
  http_header: [
    { name: 'name', label: 'Header name (e.g. Cookie, Authorization)', secret: false },
    { name: 'value', label: 'Header value', secret: true },
  ],
  aws_access_key: [
    { name: 'access_key_id', label: 'Access key id', secret: false },
    { name: 'secret_access_key', label: 'Secret access key', secret: true },
  ],
  github_token: [{ name: 'token', label: 'Token', secret: true }],
  gitlab_token: [{ name: 'token', label: 'Token', secret: true }],
  slack_token: [{ name: 'token', label: 'Token', secret: true }],
  llm_api_key: [
    { name: 'token', label: 'API key', secret: true },
    { name: 'header', label: 'Header name (optional; Authorization: Bearer by default)', secret: false, optional: true },
  ],
};

type Editing = { mode: 'create' } | { mode: 'rotate'; credential: Credential } | null;

/**
 * Settings → Credentials: the tenant's vault (DESIGN §16). Operators see the list (the scope forms
 * name credentials by alias); admins add, rotate and delete. A secret is typed in, sent once and
 * never shown again: no field of this page is ever filled with a stored value.
 */
export function Credentials() {
  const isOperator = useCan('operator');
  const isAdmin = useCan('admin');
  const credentials = useCredentials(isOperator);
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Editing>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['credentials'] });
  const remove = useMutation({
    mutationFn: (alias: string) => api(`/api/credentials/${encodeURIComponent(alias)}/`, null, { method: 'DELETE' }),
    onMutate: () => setNotice(null),
    onSuccess: async (_result, alias) => {
      await refresh();
      setNotice({ tone: 'ok', text: `${alias} was deleted. Scans that name it now fail until another credential of that alias exists.` });
    },
    onError: (error) => setNotice({ tone: 'error', text: error.message }),
  });

  if (!isOperator) {
    return (
      <>
        <h2 className="section-title">Credentials</h2>
        <p className="muted">Only operators and admins of this tenant can see its credentials.</p>
      </>
    );
  }
  const items = credentials.data ?? [];
  return (
    <>
      <div className="toolbar">
        <div>
          <h2 className="section-title">Credentials</h2>
          <p className="muted">Tokens and keys scans use for private targets. A secret is never shown again once saved.</p>
        </div>
        {isAdmin && (
          <button type="button" className="button button-primary" onClick={() => setEditing({ mode: 'create' })}>
            Add credential
          </button>
        )}
      </div>
      <NoticeSlot notice={notice} />
      {credentials.isPending ? (
        <Loading label="Loading credentials…" />
      ) : credentials.isError ? (
        <ErrorState error={credentials.error} retry={() => void credentials.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title="No credentials yet">
          <p className="muted">{isAdmin ? 'Add one with Add credential.' : 'An admin of this tenant can add them.'}</p>
        </EmptyState>
      ) : (
        <ul className="rules" aria-label="Credentials">
          {items.map((credential) => (
            <CredentialCard
              key={credential.alias}
              credential={credential}
              isAdmin={isAdmin}
              busy={remove.isPending}
              confirming={confirming === credential.alias}
              onRotate={() => setEditing({ mode: 'rotate', credential })}
              onAskDelete={() => setConfirming(credential.alias)}
              onCancelDelete={() => setConfirming(null)}
              onConfirmDelete={() => {
                setConfirming(null);
                remove.mutate(credential.alias);
              }}
            />
          ))}
        </ul>
      )}
      <Dialog
        title={editing?.mode === 'rotate' ? `Rotate ${editing.credential.alias}` : 'Add credential'}
        open={editing !== null}
        onClose={() => setEditing(null)}
      >
        {editing && (
          <CredentialForm
            key={editing.mode === 'rotate' ? editing.credential.alias : 'new'}
            rotating={editing.mode === 'rotate' ? editing.credential : undefined}
            onSaved={(saved, rotated) => {
              setEditing(null);
              setNotice({ tone: 'ok', text: `${saved.alias} was ${rotated ? 'rotated' : 'added'} (fingerprint ${saved.fingerprint}).` });
              void refresh();
            }}
            onCancel={() => setEditing(null)}
          />
        )}
      </Dialog>
    </>
  );
}

function CredentialCard({
  credential,
  isAdmin,
  busy,
  confirming,
  onRotate,
  onAskDelete,
  onCancelDelete,
  onConfirmDelete,
}: {
  credential: Credential;
  isAdmin: boolean;
  busy: boolean;
  confirming: boolean;
  onRotate: () => void;
  onAskDelete: () => void;
  onCancelDelete: () => void;
  onConfirmDelete: () => void;
}) {
  const nameId = `credential-${credential.alias}`;
  const { cancelRef, openerRef } = useConfirmFocus(confirming);
  return (
    <li className="card rule" aria-labelledby={nameId}>
      <div className="rule-head">
        <h3 id={nameId} className="rule-name mono">
          {credential.alias}
        </h3>
        <span className="badge badge-info">{KIND_LABELS[credential.kind]}</span>
      </div>
      {credential.description && <p className="muted">{credential.description}</p>}
      <dl className="rule-facts">
        <div>
          <dt>Allowed hosts</dt>
          <dd className="mono">{credential.allowed_hosts.length > 0 ? credential.allowed_hosts.join(', ') : "its provider's API only"}</dd>
        </div>
        <div>
          <dt>Fingerprint</dt>
          <dd className="mono">{credential.fingerprint}</dd>
        </div>
        <div>
          <dt>Last used</dt>
          <dd>{credential.last_used_at ? formatShort(credential.last_used_at) : 'never'}</dd>
        </div>
      </dl>
      {isAdmin &&
        (confirming ? (
          <InlineConfirm
            question={`Delete ${credential.alias}?`}
            confirmLabel="Delete"
            cancelRef={cancelRef}
            onCancel={onCancelDelete}
            onConfirm={onConfirmDelete}
          >
            Delete {credential.alias}? Scans and schedules that name it will fail.
          </InlineConfirm>
        ) : (
          <div className="rule-actions">
            <button type="button" className="button button-secondary button-small" onClick={onRotate} disabled={busy}>
              Rotate
            </button>
            <button type="button" ref={openerRef} className="button button-danger-ghost button-small" onClick={onAskDelete} disabled={busy}>
              Delete
            </button>
          </div>
        ))}
    </li>
  );
}

/** Add (alias, kind, secret, hosts, description) or rotate (the secret only). The secret fields always start empty. */
function CredentialForm({
  rotating,
  onSaved,
  onCancel,
}: {
  rotating?: Credential;
  onSaved: (saved: Credential, rotated: boolean) => void;
  onCancel: () => void;
}) {
  const [alias, setAlias] = useState('');
  const [kind, setKind] = useState<CredentialKind>(rotating?.kind ?? 'git_token');
  const [secret, setSecret] = useState<Record<string, string>>({});
  const [hosts, setHosts] = useState('');
  const [description, setDescription] = useState('');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | null>(null);
  const hostBound = HOST_BOUND_KINDS.includes(kind);

  const save = useMutation({
    mutationFn: (body: Record<string, unknown>) =>
      rotating
        ? api(`/api/credentials/${encodeURIComponent(rotating.alias)}/`, Credential, { method: 'PATCH', body })
        : api('/api/credentials/', Credential, { method: 'POST', body }),
    onSuccess: (saved) => onSaved(saved, rotating !== undefined),
    onError: (error) => {
      if (error instanceof ApiError && error.details.length > 0) {
        setErrors(Object.fromEntries(error.details.map((detail) => [detail.field.replace(/\.\d+$/, ''), detail.message])));
        setFormError(null);
      } else setFormError(error.message);
    },
  });

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setErrors({});
    const filled = Object.fromEntries(Object.entries(secret).filter(([, value]) => value !== ''));
    const body: Record<string, unknown> = { secret: filled };
    if (!rotating) {
      body.alias = alias.trim();
      body.kind = kind;
      if (hostBound) body.allowed_hosts = hosts.split(/[\s,]+/).filter(Boolean);
      if (description.trim() !== '') body.description = description.trim();
    }
    save.mutate(body);
  }

  const errorOf = (field: string) => errors[field];
  return (
    <form className="form" onSubmit={onSubmit} noValidate autoComplete="off">
      {!rotating && (
        <>
          <Field label="Alias" htmlFor="credential-alias" errorId="credential-alias-error" error={errorOf('alias')}>
            <input
              id="credential-alias"
              className="mono"
              value={alias}
              onChange={(e) => setAlias(e.target.value)}
              maxLength={63}
              aria-describedby="credential-alias-hint credential-alias-error"
              aria-invalid={errorOf('alias') !== undefined}
              required
            />
            <p id="credential-alias-hint" className="hint">
              a-z, 0-9, _ and -: the name scopes use (scope.credential).
            </p>
          </Field>
          <Field label="Kind" htmlFor="credential-kind" errorId="credential-kind-error" error={errorOf('kind')}>
            <select
              id="credential-kind"
              value={kind}
              onChange={(e) => {
                setKind(e.target.value as CredentialKind);
                setSecret({});
              }}
            >
              {CREDENTIAL_KINDS.map((value) => (
                <option key={value} value={value}>
                  {KIND_LABELS[value]}
                </option>
              ))}
            </select>
          </Field>
        </>
      )}
      {rotating && <p className="muted">The new secret replaces the stored one; the alias, kind and hosts stay.</p>}
      {SECRET_FIELDS[kind].map((field) => {
        const id = `credential-secret-${field.name}`;
        return (
          <Field
            key={field.name}
            label={field.label}
            htmlFor={id}
            errorId={`${id}-error`}
            error={errorOf(`secret.${field.name}`) ?? errorOf('secret')}
          >
            <input
              id={id}
              type={field.secret ? 'password' : 'text'}
              className="mono"
              autoComplete={field.secret ? 'new-password' : 'off'}
              spellCheck={false}
              value={secret[field.name] ?? ''}
              onChange={(e) => setSecret({ ...secret, [field.name]: e.target.value })}
              aria-describedby={`${id}-error`}
              aria-invalid={errorOf(`secret.${field.name}`) !== undefined}
              required={!field.optional}
            />
          </Field>
        );
      })}
      {!rotating && hostBound && (
        <Field label="Allowed hosts" htmlFor="credential-hosts" errorId="credential-hosts-error" error={errorOf('allowed_hosts')}>
          <textarea
            id="credential-hosts"
            className="mono"
            rows={2}
            value={hosts}
            onChange={(e) => setHosts(e.target.value)}
            aria-describedby="credential-hosts-hint credential-hosts-error"
            aria-invalid={errorOf('allowed_hosts') !== undefined}
          />
          <p id="credential-hosts-hint" className="hint">
            Host names, IP addresses or *.example.com (one label), separated by spaces or commas: the secret is sent nowhere else.
          </p>
        </Field>
      )}
      {!rotating && (
        <Field
          label="Description (optional)"
          htmlFor="credential-description"
          errorId="credential-description-error"
          error={errorOf('description')}
        >
          <input id="credential-description" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={500} />
        </Field>
      )}
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
          {rotating ? 'Rotate' : 'Add credential'}
        </button>
      </div>
    </form>
  );
}
