import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import * as z from 'zod';
import { SCAN_TYPES, scanTypes } from '../../../shared/domain/scan-types.ts';
import { LAST_RUN_STATUSES, type LastRunStatus, type Schedule } from '../../../shared/domain/schedule.ts';
import { api } from '../api.ts';
import { cadenceInWords, formatLocal, formatShort } from '../cadence.ts';
import { Dialog, EmptyState, ErrorState, Loading, type Notice, NoticeSlot, plural, StatusBadge } from '../components.tsx';
import { useSchedules } from '../queries.ts';
import { displayTarget } from '../idn.ts';
import { Link, useRouter } from '../router.tsx';
import { applyView, searchOf, viewFrom, type SortKey, type TableView } from '../schedule-table.ts';
import { useCan } from '../session.ts';
import { InlineConfirm, useConfirmFocus } from '../inline-confirm.tsx';
import { Credentials } from './credentials.tsx';
import { NotificationRules } from './notification-rules.tsx';
import { ScheduleForm } from './schedule-form.tsx';
import { SlaSettingsPanel } from './sla-settings.tsx';
import { ScopeSummary } from '../scope-form.tsx';

const TABS = [
  { id: 'scheduled-scans', label: 'Scheduled Scans', path: '/settings/scheduled-scans' },
  { id: 'notifications', label: 'Notifications', path: '/settings/notifications' },
  { id: 'credentials', label: 'Credentials', path: '/settings/credentials' },
  { id: 'sla', label: 'SLA', path: '/settings/sla' },
] as const;

/**
 * Settings and its tabs, Scheduled Scans, Notifications, Credentials and SLA (DESIGN §8, §15, §16). Each tab has its own
 * address, so a tab can be linked and Back returns to the previous one; the arrow keys move
 * between tabs as in any tab list.
 */
export function SettingsPage() {
  const { path, navigate } = useRouter();
  const selected = TABS.find((tab) => tab.path === path) ?? TABS[0];
  const tabRefs = useRef<Array<HTMLButtonElement | null>>([]);
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    const index =
      event.key === 'Home' ? 0 : event.key === 'End' ? TABS.length - 1 : (TABS.indexOf(selected) + step + TABS.length) % TABS.length;
    if (step === 0 && event.key !== 'Home' && event.key !== 'End') return;
    event.preventDefault();
    navigate(TABS[index].path);
    tabRefs.current[index]?.focus();
  }
  return (
    <section className="page">
      <h1>Settings</h1>
      <div role="tablist" aria-label="Settings" className="tabs" onKeyDown={onKeyDown}>
        {TABS.map((tab, index) => (
          <button
            key={tab.id}
            ref={(element) => {
              tabRefs.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={tab === selected}
            aria-controls={`panel-${tab.id}`}
            className="tab"
            tabIndex={tab === selected ? 0 : -1}
            onClick={() => tab !== selected && navigate(tab.path)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${selected.id}`} aria-labelledby={`tab-${selected.id}`} className="tabpanel">
        {selected.id === 'notifications' ? (
          <NotificationRules />
        ) : selected.id === 'credentials' ? (
          <Credentials />
        ) : selected.id === 'sla' ? (
          <SlaSettingsPanel />
        ) : (
          <ScheduledScans />
        )}
      </div>
    </section>
  );
}

type Editing = { mode: 'create' } | { mode: 'edit'; schedule: Schedule } | null;

/**
 * Rows drawn at first and per "Show more": 300 rows at once made a 26,800 px page. A phone shows
 * each row as a card about eight lines tall, so it draws fewer.
 */
function pageRows(): number {
  return window.matchMedia('(max-width: 760px)').matches ? 20 : 100;
}

const LAST_RUN_LABELS: Record<LastRunStatus, string> = {
  never_run: 'Never run',
  running: 'Running',
  success: 'Success',
  partial: 'Partial',
  failed: 'Failed',
};

/** A notice about one schedule's row: what its action did, and the scan a Run now started. */
interface RowNotice extends Notice {
  scheduleId: string;
  scanId: string | null;
}

/** POST …/run/'s answer, as far as the notice needs it. */
const RunNowReply = z.object({ scan: z.object({ id: z.string() }) });

const COLUMNS: ReadonlyArray<[label: string, sort: SortKey | null]> = [
  ['Name', 'name'],
  ['Scan type', 'scan_type'],
  ['Target', 'target'],
  ['Cadence', null],
  ['Next run', 'next_run'],
  ['Last run', 'last_run'],
];

function ScheduledScans() {
  const schedules = useSchedules();
  const canOperate = useCan('operator');
  const canDelete = useCan('admin');
  const queryClient = useQueryClient();
  const { search, path, navigate } = useRouter();
  const view = viewFrom(search);
  const [editing, setEditing] = useState<Editing>(null);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [pageSize] = useState(pageRows);
  const [shown, setShown] = useState(pageSize);
  const [notice, setNotice] = useState<Notice | null>(null);
  // A row action's notice shows by the row it concerns (the row that took a deleted one's place).
  const [rowNotice, setRowNotice] = useState<RowNotice | null>(null);
  const [focusAfterDelete, setFocusAfterDelete] = useState<string | null>(null);
  const tableRef = useRef<HTMLDivElement>(null);

  const setView = (change: Partial<TableView>) => {
    setShown(pageSize);
    navigate(`${path}${searchOf({ ...view, ...change })}`, { replace: true, keepScroll: true });
  };
  const refresh = () => queryClient.invalidateQueries({ queryKey: ['schedules'] });
  const act = useMutation({
    mutationFn: async ({
      schedule,
      action,
    }: {
      schedule: Schedule;
      action: 'toggle' | 'run' | 'delete';
      /** Delete only: the row that takes its place, whose notice it becomes. */
      nextId?: string;
    }): Promise<string | null> => {
      const base = `/api/scans/schedules/${schedule.id}/`;
      if (action === 'run') return (await api(`${base}run/`, RunNowReply, { method: 'POST' })).scan.id;
      if (action === 'delete') await api(base, null, { method: 'DELETE' });
      else await api(`${base}toggle/`, null, { method: 'POST' });
      return null;
    },
    onSuccess: async (scanId, { schedule, action, nextId }) => {
      const text = {
        toggle: `${schedule.name} is ${schedule.enabled ? 'paused' : 'enabled'}.`,
        run: `${schedule.name} is running now.`,
        delete: `${schedule.name} was deleted.`,
      }[action];
      setNotice(null);
      if (action === 'delete' && !nextId) setNotice({ tone: 'ok', text });
      else setRowNotice({ scheduleId: action === 'delete' ? nextId! : schedule.id, tone: 'ok', text, scanId });
      void queryClient.invalidateQueries({ queryKey: ['scans'] });
      await refresh();
    },
    onError: (error, { schedule }) => {
      setNotice(null);
      setRowNotice({ scheduleId: schedule.id, tone: 'error', text: error.message, scanId: null });
    },
  });

  const items = schedules.data ?? [];
  const rows = useMemo(() => applyView(items, view), [items, view.q, view.type, view.enabled, view.last, view.sort, view.dir]);
  const visible = rows.slice(0, shown);
  const typesPresent = SCAN_TYPES.filter((type) => items.some((schedule) => schedule.scan_type === type));
  const filtered = view.q !== '' || view.type !== '' || view.enabled !== '' || view.last !== '';

  // After a confirmed delete, focus goes to the row that took its place (or the one before, or the search).
  useEffect(() => {
    if (focusAfterDelete === null || act.isPending) return;
    const target =
      tableRef.current?.querySelector<HTMLElement>(`tr[data-schedule-id="${focusAfterDelete}"] .cell-actions .button-danger-ghost`) ??
      document.getElementById('schedule-search');
    target?.focus();
    setFocusAfterDelete(null);
  }, [focusAfterDelete, act.isPending, rows]);

  function confirmDelete(schedule: Schedule) {
    const index = visible.findIndex((row) => row.id === schedule.id);
    const next = visible[index + 1] ?? visible[index - 1];
    setConfirming(null);
    act.mutate({ schedule, action: 'delete', nextId: next?.id });
    setFocusAfterDelete(next ? next.id : '');
  }

  return (
    <>
      <div className="toolbar">
        <div>
          <h2 className="section-title">Scheduled Scans</h2>
          <p className="muted">Recurring scans of this tenant. Each enabled schedule owns one trigger; every fire starts one scan.</p>
        </div>
        {canOperate && (
          <button type="button" className="button button-primary" onClick={() => setEditing({ mode: 'create' })}>
            New schedule
          </button>
        )}
      </div>
      <NoticeSlot notice={notice} />
      {schedules.isPending ? (
        <Loading label="Loading schedules…" />
      ) : schedules.isError ? (
        <ErrorState error={schedules.error} retry={() => void schedules.refetch()} />
      ) : items.length === 0 ? (
        <EmptyState title="No scheduled scans yet">
          <p className="muted">
            {canOperate ? 'Create one with New schedule, or ask for one on the Scan page.' : 'An operator of this tenant can create one.'}
          </p>
        </EmptyState>
      ) : (
        <>
          <form className="filters" role="search" aria-label="Filter schedules" onSubmit={(event) => event.preventDefault()}>
            <div className="field field-grow">
              <label htmlFor="schedule-search">Search schedules</label>
              <input
                id="schedule-search"
                type="search"
                value={view.q}
                onChange={(event) => setView({ q: event.target.value })}
                placeholder="Name or target, e.g. bücher.example"
                autoComplete="off"
                spellCheck={false}
              />
            </div>
            <div className="field">
              <label htmlFor="schedule-type">Scan type</label>
              <select id="schedule-type" value={view.type} onChange={(event) => setView({ type: event.target.value as TableView['type'] })}>
                <option value="">Any scan type</option>
                {typesPresent.map((type) => (
                  <option key={type} value={type}>
                    {scanTypes[type].label}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <label htmlFor="schedule-enabled">Enabled</label>
              <select
                id="schedule-enabled"
                value={view.enabled}
                onChange={(event) => setView({ enabled: event.target.value as TableView['enabled'] })}
              >
                <option value="">Enabled or paused</option>
                <option value="yes">Enabled</option>
                <option value="no">Paused</option>
              </select>
            </div>
            <div className="field">
              <label htmlFor="schedule-last">Last run</label>
              <select id="schedule-last" value={view.last} onChange={(event) => setView({ last: event.target.value as TableView['last'] })}>
                <option value="">Any last run</option>
                {LAST_RUN_STATUSES.map((status) => (
                  <option key={status} value={status}>
                    {LAST_RUN_LABELS[status]}
                  </option>
                ))}
              </select>
            </div>
          </form>
          <p className="muted table-count" role="status" aria-live="polite">
            <span>
              {filtered ? `${rows.length} of ${plural(items.length, 'schedule')} match.` : `${plural(items.length, 'schedule')}.`}
            </span>
            {filtered && (
              <>
                {' '}
                <button type="button" className="link-button" onClick={() => setView({ q: '', type: '', enabled: '', last: '' })}>
                  Clear search and filters
                </button>
              </>
            )}
          </p>
          {rows.length === 0 ? (
            <EmptyState title="No schedule matches">
              <p className="muted">Change the search or the filters.</p>
            </EmptyState>
          ) : (
            <div className="table-wrap" ref={tableRef}>
              <table className={`table schedules-table${canOperate ? '' : ' schedules-table-readonly'}`}>
                <caption className="visually-hidden">Scheduled scans</caption>
                <thead>
                  <tr>
                    {COLUMNS.map(([label, key]) => (
                      <th
                        key={label}
                        scope="col"
                        className={`col-${label.toLowerCase().replace(' ', '-')}`}
                        aria-sort={key && view.sort === key ? (view.dir === 'asc' ? 'ascending' : 'descending') : undefined}
                      >
                        {key ? (
                          <button
                            type="button"
                            className="sort-button"
                            onClick={() => setView({ sort: key, dir: view.sort === key && view.dir === 'asc' ? 'desc' : 'asc' })}
                          >
                            {label}
                            <span aria-hidden="true" className="sort-mark">
                              {view.sort === key ? (view.dir === 'asc' ? '▲' : '▼') : ''}
                            </span>
                          </button>
                        ) : (
                          label
                        )}
                      </th>
                    ))}
                    <th scope="col" className="col-enabled">
                      Enabled
                    </th>
                    {canOperate && (
                      <th scope="col" className="col-actions">
                        <span className="visually-hidden">Actions</span>
                      </th>
                    )}
                  </tr>
                </thead>
                <tbody>
                  {visible.map((schedule) => (
                    <ScheduleRow
                      key={schedule.id}
                      schedule={schedule}
                      canOperate={canOperate}
                      canDelete={canDelete}
                      busy={act.isPending}
                      confirming={confirming === schedule.id}
                      notice={rowNotice?.scheduleId === schedule.id ? rowNotice : null}
                      onAct={(action) => act.mutate({ schedule, action })}
                      onEdit={() => setEditing({ mode: 'edit', schedule })}
                      onAskDelete={() => setConfirming(schedule.id)}
                      onCancelDelete={() => setConfirming(null)}
                      onConfirmDelete={() => confirmDelete(schedule)}
                    />
                  ))}
                </tbody>
              </table>
              {rows.length > shown && (
                <button type="button" className="button button-secondary show-more" onClick={() => setShown(shown + pageSize)}>
                  Show {Math.min(pageSize, rows.length - shown)} more ({rows.length - shown} not shown)
                </button>
              )}
            </div>
          )}
        </>
      )}
      <Dialog
        title={editing?.mode === 'edit' ? `Edit ${editing.schedule.name}` : 'New schedule'}
        open={editing !== null}
        onClose={() => setEditing(null)}
      >
        {editing && (
          <ScheduleForm
            key={editing.mode === 'edit' ? editing.schedule.id : 'new'}
            schedule={editing.mode === 'edit' ? editing.schedule : undefined}
            onDone={(saved) => {
              setEditing(null);
              setNotice({ tone: 'ok', text: `${saved.name} was ${editing.mode === 'edit' ? 'saved' : 'created'}.` });
              void refresh();
            }}
            onCancel={() => setEditing(null)}
          />
        )}
      </Dialog>
    </>
  );
}

/** One schedule on one line (at desktop width); its delete confirmation is the row right under it. */
function ScheduleRow({
  schedule,
  canOperate,
  canDelete,
  busy,
  confirming,
  onAct,
  onEdit,
  onAskDelete,
  onCancelDelete,
  onConfirmDelete,
  notice,
}: {
  schedule: Schedule;
  canOperate: boolean;
  canDelete: boolean;
  busy: boolean;
  confirming: boolean;
  onAct: (action: 'toggle' | 'run') => void;
  onEdit: () => void;
  onAskDelete: () => void;
  onCancelDelete: () => void;
  onConfirmDelete: () => void;
  notice: RowNotice | null;
}) {
  const nameId = `name-${schedule.id}`;
  const noticeRef = useRef<HTMLTableRowElement>(null);
  // In view: the row's notice is where the reader clicked, not at the table's top.
  useEffect(() => {
    noticeRef.current?.scrollIntoView?.({ block: 'nearest' });
  }, [notice]);
  const { cancelRef, openerRef: deleteRef } = useConfirmFocus(confirming);
  const target = displayTarget(schedule.target);
  const fullName = schedule.description ? `${schedule.name}: ${schedule.description}` : schedule.name;
  const cadence = cadenceInWords(schedule);
  const lastRun = `${LAST_RUN_LABELS[schedule.last_run_status]}${schedule.last_run_at ? `, ${formatLocal(schedule.last_run_at)}` : ''}`;
  return (
    <>
      <tr data-schedule-id={schedule.id} className={confirming ? 'row-confirming' : undefined}>
        <th scope="row" className="cell-name" id={nameId} title={fullName}>
          <Link to={`/settings/scheduled-scans/${schedule.id}`} title={`${fullName} (open its run history)`}>
            {schedule.name}
          </Link>
          {schedule.description && <span className="visually-hidden">: {schedule.description}</span>}
        </th>
        <td data-label="Scan type" className="cell-type" title={scanTypes[schedule.scan_type].label}>
          {scanTypes[schedule.scan_type].label}
        </td>
        <td data-label="Target" className="cell-target">
          {target === schedule.target ? (
            <span title={schedule.target}>{schedule.target}</span>
          ) : (
            <span title={`${schedule.target} (as stored and scanned)`} lang="und">
              {target}
            </span>
          )}
          <ScopeSummary scope={schedule.scope} scanType={schedule.scan_type} inRow />
        </td>
        <td data-label="Cadence" className="cell-cadence" title={cadence}>
          {cadence}
        </td>
        <td data-label="Next run" className="cell-next" title={schedule.enabled ? formatLocal(schedule.next_run_at) : 'Paused'}>
          {schedule.enabled ? formatShort(schedule.next_run_at) : <span className="muted">Paused</span>}
        </td>
        <td data-label="Last run" className="cell-last" title={lastRun}>
          {schedule.last_scan_id ? (
            <Link
              to={`/scans/${schedule.last_scan_id}`}
              className="badge-link"
              aria-label={`Last run: ${lastRun.toLowerCase()}, open the scan`}
            >
              <StatusBadge status={schedule.last_run_status} />
            </Link>
          ) : (
            <StatusBadge status={schedule.last_run_status} />
          )}
        </td>
        <td data-label="Enabled" className="cell-enabled">
          {canOperate ? (
            <button
              type="button"
              role="switch"
              aria-checked={schedule.enabled}
              aria-label="Enabled"
              aria-describedby={nameId}
              className="switch"
              disabled={busy}
              onClick={() => onAct('toggle')}
            >
              <span className="switch-thumb" aria-hidden="true" />
            </button>
          ) : (
            <span>{schedule.enabled ? 'Yes' : 'No'}</span>
          )}
        </td>
        {canOperate && (
          <td className="cell-actions">
            <button
              type="button"
              className="button button-secondary button-small"
              aria-describedby={nameId}
              disabled={busy}
              onClick={() => onAct('run')}
            >
              Run now
            </button>
            <button type="button" className="button button-secondary button-small" aria-describedby={nameId} onClick={onEdit}>
              Edit
            </button>
            {canDelete && (
              <button
                ref={deleteRef}
                type="button"
                className="button button-danger-ghost button-small"
                aria-describedby={nameId}
                aria-expanded={confirming}
                aria-controls={`confirm-${schedule.id}`}
                onClick={confirming ? onCancelDelete : onAskDelete}
              >
                Delete
              </button>
            )}
          </td>
        )}
      </tr>
      {notice && (
        <tr className="row-notice" ref={noticeRef}>
          <td colSpan={canOperate ? 8 : 7}>
            <p className={`notice notice-${notice.tone}`} role={notice.tone === 'error' ? 'alert' : 'status'}>
              {notice.text}
              {notice.scanId && (
                <>
                  {' '}
                  <Link to={`/scans/${notice.scanId}`}>Open the scan</Link>
                </>
              )}
            </p>
          </td>
        </tr>
      )}
      {confirming && (
        <tr className="confirm-row" id={`confirm-${schedule.id}`}>
          <td colSpan={canOperate ? 8 : 7}>
            <InlineConfirm
              question={`Delete ${schedule.name}?`}
              confirmLabel="Delete schedule"
              cancelRef={cancelRef}
              onCancel={onCancelDelete}
              onConfirm={onConfirmDelete}
            >
              Delete <strong>{schedule.name}</strong>? Its trigger is removed; scans already running finish and findings stay.
            </InlineConfirm>
          </td>
        </tr>
      )}
    </>
  );
}
