import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { findDuplicateSchedule, type ScheduleShape } from '../../../shared/chat/duplicate-schedule.ts';
import { parseScanPrompt, promptExamples, type PromptResult } from '../../../shared/chat/scan-prompt.ts';
import { targetPolicyOf } from '../../../shared/domain/scan-type-list.ts';
import type { Schedule } from '../../../shared/domain/schedule.ts';
import { ScanJob } from '../../../shared/domain/scan-job.ts';
import { ScanTypeItem } from '../../../shared/domain/scan-type-list.ts';
import { api, ApiError } from '../api.ts';
import { ErrorState, FieldError, Loading } from '../components.tsx';
import { fieldSentence } from '../field-errors.ts';
import { useScanTypes, useSchedules } from '../queries.ts';
import { Link, useRouter } from '../router.tsx';
import { useCan } from '../session.ts';
import { useArtifactUploads } from '../uploads.ts';
import { ArtifactUploads, artifactPickers } from './artifact-uploads.tsx';
import { ScopeFields, useCredentialChoices } from '../scope-form.tsx';
import { CredentialTargetSelect } from '../credential-target.tsx';
import {
  draftOf,
  optionsFromWords,
  scopeErrorOf,
  scopeFieldsOf,
  scopeFromDraft,
  type ScopeDraft,
  type ScopeIssue,
} from '../scope-schema.ts';
import type { z } from 'zod';

/** The scan page: the chat prompt and the launcher tiles. */
export function HomePage() {
  const canOperate = useCan('operator');
  return (
    <section className="page">
      <h1>Scan</h1>
      {canOperate ? <AskToScan /> : <p className="muted">Your role can read scans and findings; an operator starts scans.</p>}
      <LaunchScan canOperate={canOperate} />
    </section>
  );
}

type PromptRequest = Extract<PromptResult, { kind: 'request' }>['request'];

function describeError(error: unknown): string {
  if (error instanceof ApiError)
    return `${error.message}${error.details.length ? `: ${error.details.map((d) => `${d.field} ${d.message}`).join('; ')}` : ''}`;
  return error instanceof Error ? error.message : String(error);
}

function AskToScan() {
  const { navigate } = useRouter();
  const queryClient = useQueryClient();
  const schedules = useSchedules();
  const scanTypeList = useScanTypes();
  const runnable = useMemo(
    () => new Set((scanTypeList.data?.items ?? []).filter((type) => type.runner_available).map((type) => type.value)),
    [scanTypeList.data],
  );
  const examples = promptExamples(runnable);
  const targetPolicy = scanTypeList.data ? targetPolicyOf(scanTypeList.data.target_policy) : undefined;
  const [text, setText] = useState('');
  const [result, setResult] = useState<PromptResult | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [errorText, setErrorText] = useState<string | null>(null);

  /** Sends exactly the request shown. A manual scan opens its page; the rest stay here with a notice. */
  async function onSend(request: PromptRequest) {
    setBusy(true);
    setErrorText(null);
    try {
      if (request.path === '/api/scans/') {
        const scan = await api(request.path, ScanJob, { method: request.method, body: request.body });
        await queryClient.invalidateQueries({ queryKey: ['scans'] });
        navigate(`/scans/${scan.id}`);
        return;
      }
      await api(request.path, null, { method: request.method, body: request.body });
      await queryClient.invalidateQueries({ queryKey: ['schedules'] });
      void queryClient.invalidateQueries({ queryKey: ['scans'] });
      setSent(
        request.path === '/api/scans/schedules/'
          ? 'Schedule created: see it on the Scheduled Scans tab.'
          : `Done: ${result?.kind === 'request' ? result.summary : ''}`,
      );
      setResult(null);
      setText('');
    } catch (error) {
      setErrorText(describeError(error));
    } finally {
      setBusy(false);
    }
  }

  function onPreview(event: FormEvent) {
    event.preventDefault();
    setSent(null);
    setErrorText(null);
    // Options in words ("ports 22,6390", "branch dev without history") by the type's scope schema.
    const optionsIn = (scanType: string, words: string) => {
      const engine = scanTypeList.data?.items.find((type) => type.value === scanType)?.engine;
      return optionsFromWords(scopeFieldsOf(engine?.scope_schema, Object.keys(engine?.artifact_fields ?? {})), words);
    };
    setResult(parseScanPrompt(text, { schedules: schedules.data ?? [], runnable, policy: targetPolicy, optionsIn }));
  }

  return (
    <section className="card ask" aria-labelledby="ask-title">
      <h2 id="ask-title" className="section-title">
        Ask to scan
      </h2>
      <form className="ask-form" onSubmit={onPreview}>
        <label htmlFor="ask" className="visually-hidden">
          Ask to scan
        </label>
        <input
          id="ask"
          className="ask-input"
          value={text}
          onChange={(event) => setText(event.target.value)}
          placeholder={examples.find((example) => !/^(run|pause) /.test(example)) ?? 'run Mail posture now'}
          autoComplete="off"
          aria-describedby="ask-hint"
        />
        <button type="submit" className="button button-primary">
          Preview
        </button>
      </form>
      <p id="ask-hint" className="hint">
        Nothing is sent until you confirm the request it shows.
      </p>
      <div aria-live="polite">
        {sent && <p className="notice notice-ok">{sent}</p>}
        {result?.kind === 'not_understood' && (
          <div className="ask-result ask-unknown">
            <p>
              <strong>Not understood.</strong> {result.message}
            </p>
            <p className="preview-label">Try, for example:</p>
            <ul className="examples">
              {result.examples.map((example) => (
                <li key={example}>
                  <button type="button" className="link-button" onClick={() => setText(example)}>
                    {example}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
        {result?.kind === 'request' && (
          <div className="ask-result" role="group" aria-label="Request to send">
            <p>{result.summary}</p>
            <DuplicateWarning request={result.request} schedules={schedules.data ?? []} />
            <pre className="request" aria-label="Request">
              <span className="request-line">
                {result.request.method} {result.request.path}
              </span>
              {result.request.body !== undefined && `\n${JSON.stringify(result.request.body, null, 2)}`}
            </pre>
            {errorText && (
              <p className="form-error" role="alert">
                {errorText}
              </p>
            )}
            <div className="form-actions">
              <button type="button" className="button button-secondary" onClick={() => setResult(null)}>
                Cancel
              </button>
              <button
                type="button"
                className="button button-primary"
                disabled={busy}
                aria-describedby={duplicateOf(result.request, schedules.data ?? []) ? 'ask-duplicate' : undefined}
                onClick={() => void onSend(result.request)}
              >
                Send
              </button>
            </div>
          </div>
        )}
      </div>
    </section>
  );
}

function duplicateOf(request: PromptRequest, schedules: Schedule[]): Schedule | undefined {
  if (request.path !== '/api/scans/schedules/' || !request.body) return undefined;
  return findDuplicateSchedule(request.body as unknown as ScheduleShape, schedules);
}

/** Sending would create a schedule that fires the same scan at the same times as one that exists. */
function DuplicateWarning({ request, schedules }: { request: PromptRequest; schedules: Schedule[] }) {
  const duplicate = duplicateOf(request, schedules);
  if (!duplicate) return null;
  return (
    <p id="ask-duplicate" className="notice notice-warning" role="alert">
      <strong>Duplicate:</strong> “{duplicate.name}” already runs this scan of {duplicate.target} on the same cadence
      {duplicate.enabled ? '' : ' (paused)'}. Send creates a second schedule that fires at the same times.{' '}
      <Link to={`/settings/scheduled-scans?q=${encodeURIComponent(duplicate.name)}`}>See it</Link>
    </p>
  );
}

function LaunchScan({ canOperate }: { canOperate: boolean }) {
  const scanTypes = useScanTypes();
  const [open, setOpen] = useState<string | null>(null);
  return (
    <section className="launch" aria-labelledby="launch-title">
      <h2 id="launch-title" className="section-title">
        Launch a scan
      </h2>
      {scanTypes.isPending ? (
        <Loading label="Loading scan types…" />
      ) : scanTypes.isError ? (
        <ErrorState error={scanTypes.error} retry={() => void scanTypes.refetch()} />
      ) : (
        <>
          <TileList
            types={scanTypes.data.items.filter((type) => type.runner_available)}
            canOperate={canOperate}
            open={open}
            setOpen={setOpen}
          />
          {scanTypes.data.items.some((type) => !type.runner_available) && (
            <>
              <h3 className="section-subtitle" id="unavailable-title">
                Not available in this deployment
              </h3>
              <TileList
                types={scanTypes.data.items.filter((type) => !type.runner_available)}
                canOperate={canOperate}
                open={open}
                setOpen={setOpen}
                labelledBy="unavailable-title"
              />
            </>
          )}
        </>
      )}
    </section>
  );
}

/** Tiles of scan types, in the API's order: the ready ones first, then those without a runner here. */
function TileList({
  types,
  canOperate,
  open,
  setOpen,
  labelledBy,
}: {
  types: z.infer<typeof ScanTypeItem>[];
  canOperate: boolean;
  open: string | null;
  setOpen: (value: string | null) => void;
  labelledBy?: string;
}) {
  if (types.length === 0) return null;
  return (
    <ul className="tiles" aria-labelledby={labelledBy}>
      {types.map((type) => (
        <li
          key={type.value}
          className={`tile ${type.runner_available ? '' : 'tile-unavailable'} ${open === type.value ? 'tile-open' : ''}`}
        >
          <Tile
            type={type}
            canOperate={canOperate}
            open={open === type.value}
            onOpen={() => setOpen(open === type.value ? null : type.value)}
          />
        </li>
      ))}
    </ul>
  );
}

function Tile({
  type,
  canOperate,
  open,
  onOpen,
}: {
  type: z.infer<typeof ScanTypeItem>;
  canOperate: boolean;
  open: boolean;
  onOpen: () => void;
}) {
  const { navigate } = useRouter();
  const queryClient = useQueryClient();
  const [target, setTarget] = useState('');
  // Every type's options come from its engine's scope schema (scope-schema.ts), and its files from
  // the manifest's artifact fields (docs/web-ui.md, "Scan options"): no engine is named here.
  const artifactFields = type.engine?.artifact_fields;
  const uploads = useArtifactUploads(artifactFields);
  const pickers = useMemo(() => artifactPickers(artifactFields ?? {}, type.engine?.scope_schema), [artifactFields, type]);
  const scopeFields = useMemo(() => scopeFieldsOf(type.engine?.scope_schema, Object.keys(artifactFields ?? {})), [type, artifactFields]);
  const [draft, setDraft] = useState<ScopeDraft>(() => draftOf(scopeFields));
  const [scopeIssues, setScopeIssues] = useState<ScopeIssue[]>([]);
  const credentials = useCredentialChoices(type.engine?.credential_kinds);
  const start = useMutation({
    // Only ready artifacts go into the scope: a rejected or failed file is listed but never sent.
    mutationFn: ({ target: sentTarget, scope }: { target: string; scope?: Record<string, unknown> }) => {
      const sent = { ...scope, ...uploads.scope };
      return api('/api/scans/', ScanJob, {
        method: 'POST',
        body: { scan_type: type.value, target: sentTarget, ...(Object.keys(sent).length ? { scope: sent } : {}) },
      });
    },
    onSuccess: (scan) => {
      void queryClient.invalidateQueries({ queryKey: ['scans'] });
      navigate(`/scans/${scan.id}`);
    },
  });
  // A target error speaks of the target that was sent: once it is edited, the error is gone.
  const issues = (start.error instanceof ApiError ? start.error.details : []).filter(
    (issue) => issue.field !== 'target' || start.variables?.target === target,
  );
  // The browser's scope issues until the next attempt, else the API's while the draft is the one sent.
  const sentDraft = start.variables?.scope === undefined ? null : start.variables.scope;
  const serverScopeIssues = JSON.stringify(scopeFromDraft(scopeFields, draft).scope) === JSON.stringify(sentDraft) ? issues : [];
  const scopeErrorFor = scopeErrorOf(
    scopeFields,
    scopeIssues.length ? scopeIssues : serverScopeIssues.filter((i) => i.field.startsWith('scope.')),
  );
  const errorOf = (field: string) => {
    const messages = issues
      .filter((issue) => issue.field === field || issue.field.startsWith(`scope.${field}`))
      .map((issue) => issue.message);
    const label = field === 'target' ? 'Target' : (pickers.find((picker) => picker.key === field)?.label ?? field);
    return messages.length ? fieldSentence(label, messages) : undefined;
  };
  const formRef = useRef<HTMLFormElement>(null);
  // A refused option takes the cursor, as the other forms' first invalid field does.
  useEffect(() => {
    if (scopeIssues.length) formRef.current?.querySelector<HTMLElement>('.scope-fields [aria-invalid="true"]')?.focus();
  }, [scopeIssues]);
  const targetRef = useRef<HTMLInputElement>(null);
  const targetSelectRef = useRef<HTMLSelectElement>(null);
  // Opening a tile puts the cursor in its Target field.
  useEffect(() => {
    if (open) (targetRef.current ?? targetSelectRef.current)?.focus();
  }, [open]);
  const id = `tile-${type.value}`;
  const reason = type.runner_available ? null : 'No runner in this deployment';
  return (
    <>
      <div className="tile-head">
        <h3 id={`${id}-title`} className="tile-title">
          {type.label}
        </h3>
        {reason ? <span className="badge badge-neutral">Unavailable</span> : <span className="badge badge-success">Ready</span>}
      </div>
      <p className="tile-hint">{type.target_hint}</p>
      {reason && <p className="tile-reason">{reason}.</p>}
      {canOperate && !reason && !open && (
        <button type="button" className="button button-secondary button-small" aria-describedby={`${id}-title`} onClick={onOpen}>
          Scan a target
        </button>
      )}
      {canOperate && reason && (
        <button type="button" className="button button-secondary button-small" disabled aria-describedby={`${id}-title`}>
          Scan a target
        </button>
      )}
      {open && (
        <form
          ref={formRef}
          className="tile-form"
          onSubmit={(event) => {
            event.preventDefault();
            const { scope, issues: found } = scopeFromDraft(scopeFields, draft);
            setScopeIssues(found);
            if (found.length) return;
            start.mutate({ target, scope: scopeFields.length ? scope : undefined });
          }}
          noValidate
        >
          <div className="field">
            <label htmlFor={`${id}-target`}>Target</label>
            {type.engine?.target_kind === 'credential_alias' ? (
              <CredentialTargetSelect
                id={`${id}-target`}
                value={target}
                onChange={setTarget}
                choices={credentials}
                kinds={type.engine.credential_kinds ?? []}
                selectRef={targetSelectRef}
                invalid={!!errorOf('target')}
                describedBy={errorOf('target') ? `${id}-target-error` : undefined}
              />
            ) : (
              <input
                ref={targetRef}
                id={`${id}-target`}
                value={target}
                onChange={(e) => setTarget(e.target.value)}
                placeholder={type.target_hint}
                spellCheck={false}
                autoComplete="off"
                aria-invalid={!!errorOf('target')}
                aria-describedby={errorOf('target') ? `${id}-target-error` : undefined}
              />
            )}
            <FieldError id={`${id}-target-error`} message={errorOf('target')} />
          </div>
          <ScopeFields
            idPrefix={id}
            fields={scopeFields}
            draft={draft}
            onChange={(next) => {
              setDraft(next);
              setScopeIssues([]);
            }}
            errorOf={scopeErrorFor}
            legend={`${type.label} options`}
            credentials={credentials}
          />
          <ArtifactUploads idPrefix={id} pickers={pickers} uploads={uploads} errorOf={errorOf} />
          {start.isError && issues.length === 0 && (
            <p className="form-error" role="alert">
              {start.error.message}
            </p>
          )}
          <div className="form-actions">
            <button type="button" className="button button-secondary" onClick={onOpen}>
              Cancel
            </button>
            <button
              type="submit"
              className="button button-primary"
              disabled={start.isPending || uploads.busy}
              aria-describedby={uploads.busy ? `${id}-wait` : undefined}
            >
              Start scan
            </button>
          </div>
          {uploads.busy && (
            <p id={`${id}-wait`} className="hint form-wait">
              Start scan waits until every file is uploaded and checked.
            </p>
          )}
        </form>
      )}
    </>
  );
}
