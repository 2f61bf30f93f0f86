import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { scanTypes } from '../../../shared/domain/scan-types.ts';
import { Schedule } from '../../../shared/domain/schedule.ts';
import { api } from '../api.ts';
import { cadenceInWords, formatLocal } from '../cadence.ts';
import { Dialog, EmptyState, ErrorState, Loading, StatusBadge } from '../components.tsx';
import { useSchedules } from '../queries.ts';
import { Link } from '../router.tsx';
import { useCan } from '../session.ts';
import { ScheduleForm } from './schedule-form.tsx';

/** Settings, with its one tab: Scheduled Scans (DESIGN §8). */
export function SettingsPage() {
  return (
    <section className="page">
      <h1>Settings</h1>
      <div role="tablist" aria-label="Settings" className="tabs">
        <button
          type="button"
          role="tab"
          id="tab-scheduled-scans"
          aria-selected="true"
          aria-controls="panel-scheduled-scans"
          className="tab"
          tabIndex={0}
        >
          Scheduled Scans
        </button>
      </div>
      <div role="tabpanel" id="panel-scheduled-scans" aria-labelledby="tab-scheduled-scans" className="tabpanel">
        <ScheduledScans />
      </div>
    </section>
  );
}

type Editing = { mode: 'create' } | { mode: 'edit'; schedule: Schedule } | null;

function ScheduledScans() {
  const schedules = useSchedules();
  const canOperate = useCan('operator');
  const canDelete = useCan('admin');
  const queryClient = useQueryClient();
  const [editing, setEditing] = useState<Editing>(null);
  const [deleting, setDeleting] = useState<Schedule | null>(null);
  const [notice, setNotice] = useState<{ tone: 'ok' | 'error'; text: string } | null>(null);

  const refresh = () => queryClient.invalidateQueries({ queryKey: ['schedules'] });
  const act = useMutation({
    mutationFn: async ({ schedule, action }: { schedule: Schedule; action: 'toggle' | 'run' | 'delete' }) => {
      const base = `/api/scans/schedules/${schedule.id}/`;
      if (action === 'delete') return api(base, null, { method: 'DELETE' });
      return api(`${base}${action}/`, null, { method: 'POST' });
    },
    onSuccess: (_result, { schedule, action }) => {
      const text = {
        toggle: `${schedule.name} is ${schedule.enabled ? 'paused' : 'enabled'}.`,
        run: `${schedule.name} is running now.`,
        delete: `${schedule.name} was deleted.`,
      }[action];
      setNotice({ tone: 'ok', text });
      void refresh();
      void queryClient.invalidateQueries({ queryKey: ['scans'] });
    },
    onError: (error) => setNotice({ tone: 'error', text: error.message }),
  });

  const items = schedules.data?.pages.flatMap((page) => page.items) ?? [];

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
      <div aria-live="polite" className="notice-slot">
        {notice && <p className={`notice notice-${notice.tone}`}>{notice.text}</p>}
      </div>
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
        <div className="table-wrap">
          <table className="table schedules-table">
            <caption className="visually-hidden">Scheduled scans</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Scan type</th>
                <th scope="col">Target</th>
                <th scope="col">Cadence</th>
                <th scope="col">Next run</th>
                <th scope="col">Last run</th>
                <th scope="col">Enabled</th>
                {canOperate && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {items.map((schedule) => (
                <tr key={schedule.id} data-schedule-id={schedule.id}>
                  <th scope="row" className="cell-name" id={`name-${schedule.id}`}>
                    {schedule.name}
                    {schedule.description && <span className="cell-sub">{schedule.description}</span>}
                  </th>
                  <td data-label="Scan type">{scanTypes[schedule.scan_type].label}</td>
                  <td data-label="Target" className="cell-target">
                    {schedule.target}
                  </td>
                  <td data-label="Cadence">{cadenceInWords(schedule)}</td>
                  <td data-label="Next run">
                    {schedule.enabled ? formatLocal(schedule.next_run_at) : <span className="muted">Paused</span>}
                  </td>
                  <td data-label="Last run">
                    {schedule.last_scan_id ? (
                      <Link
                        to={`/scans/${schedule.last_scan_id}`}
                        className="badge-link"
                        aria-label={`Last run: ${schedule.last_run_status.replace('_', ' ')}, open the scan`}
                      >
                        <StatusBadge status={schedule.last_run_status} />
                      </Link>
                    ) : (
                      <StatusBadge status={schedule.last_run_status} />
                    )}
                    {schedule.last_run_at && <span className="cell-sub">{formatLocal(schedule.last_run_at)}</span>}
                  </td>
                  <td data-label="Enabled">
                    {canOperate ? (
                      <button
                        type="button"
                        role="switch"
                        aria-checked={schedule.enabled}
                        aria-label="Enabled"
                        aria-describedby={`name-${schedule.id}`}
                        className="switch"
                        disabled={act.isPending}
                        onClick={() => act.mutate({ schedule, action: 'toggle' })}
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
                        aria-describedby={`name-${schedule.id}`}
                        disabled={act.isPending}
                        onClick={() => act.mutate({ schedule, action: 'run' })}
                      >
                        Run now
                      </button>
                      <button
                        type="button"
                        className="button button-secondary button-small"
                        aria-describedby={`name-${schedule.id}`}
                        onClick={() => setEditing({ mode: 'edit', schedule })}
                      >
                        Edit
                      </button>
                      {canDelete && (
                        <button
                          type="button"
                          className="button button-danger-ghost button-small"
                          aria-describedby={`name-${schedule.id}`}
                          onClick={() => setDeleting(schedule)}
                        >
                          Delete
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
          {schedules.hasNextPage && (
            <button
              type="button"
              className="button button-secondary"
              onClick={() => void schedules.fetchNextPage()}
              disabled={schedules.isFetchingNextPage}
            >
              {schedules.isFetchingNextPage ? 'Loading…' : 'Load more schedules'}
            </button>
          )}
        </div>
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
      <Dialog title="Delete schedule?" open={deleting !== null} onClose={() => setDeleting(null)}>
        {deleting && (
          <>
            <p>
              <strong>{deleting.name}</strong> and its trigger will be removed. Scans already running finish; findings stay.
            </p>
            <div className="form-actions">
              <button type="button" className="button button-secondary" onClick={() => setDeleting(null)}>
                Cancel
              </button>
              <button
                type="button"
                className="button button-danger"
                onClick={() => {
                  act.mutate({ schedule: deleting, action: 'delete' });
                  setDeleting(null);
                }}
              >
                Delete schedule
              </button>
            </div>
          </>
        )}
      </Dialog>
    </>
  );
}
