import type { LastRunStatus, Schedule } from '../../shared/domain/schedule.ts';
import { scanTypes, type ScanType } from '../../shared/domain/scan-types.ts';
import { displayTarget } from './idn.ts';
import { domainToASCII } from './shims/node-url.ts';

/** The Scheduled Scans table's search, filters and sort, as kept in the address bar. */
export interface TableView {
  q: string;
  type: ScanType | '';
  enabled: 'yes' | 'no' | '';
  last: LastRunStatus | '';
  sort: SortKey;
  dir: 'asc' | 'desc';
}

export const SORT_KEYS = ['name', 'scan_type', 'target', 'next_run', 'last_run'] as const;
export type SortKey = (typeof SORT_KEYS)[number];

export function viewFrom(search: URLSearchParams): TableView {
  const sort = search.get('sort') as SortKey | null;
  return {
    q: search.get('q') ?? '',
    type: (search.get('type') ?? '') as TableView['type'],
    enabled: (['yes', 'no'].includes(search.get('enabled') ?? '') ? search.get('enabled') : '') as TableView['enabled'],
    last: (search.get('last') ?? '') as TableView['last'],
    sort: sort && (SORT_KEYS as readonly string[]).includes(sort) ? sort : 'name',
    dir: search.get('dir') === 'desc' ? 'desc' : 'asc',
  };
}

export function searchOf(view: TableView): string {
  const params = new URLSearchParams();
  if (view.q) params.set('q', view.q);
  if (view.type) params.set('type', view.type);
  if (view.enabled) params.set('enabled', view.enabled);
  if (view.last) params.set('last', view.last);
  if (view.sort !== 'name') params.set('sort', view.sort);
  if (view.dir !== 'asc') params.set('dir', view.dir);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Name or target, as typed or in Unicode: `bücher` finds `xn--bcher-kva.example` and the reverse. */
export function matchesSearch(schedule: Pick<Schedule, 'name' | 'target'>, query: string): boolean {
  const q = query.trim().toLowerCase();
  if (q === '') return true;
  const target = schedule.target.toLowerCase();
  if (schedule.name.toLowerCase().includes(q) || target.includes(q) || displayTarget(target).includes(q)) return true;
  const ascii = domainToASCII(q);
  return ascii !== '' && ascii !== q && target.includes(ascii);
}

const RUN_ORDER: LastRunStatus[] = ['failed', 'partial', 'running', 'success', 'never_run'];

function compare(a: Schedule, b: Schedule, key: SortKey): number {
  switch (key) {
    case 'name':
      return a.name.localeCompare(b.name, undefined, { sensitivity: 'base', numeric: true });
    case 'scan_type':
      return scanTypes[a.scan_type].label.localeCompare(scanTypes[b.scan_type].label);
    case 'target':
      return displayTarget(a.target).localeCompare(displayTarget(b.target));
    case 'next_run':
      // Paused schedules (no next run) last.
      return (a.next_run_at ?? '\uffff').localeCompare(b.next_run_at ?? '\uffff');
    case 'last_run':
      // Failures first: the column is sorted to find what needs attention.
      return (
        RUN_ORDER.indexOf(a.last_run_status) - RUN_ORDER.indexOf(b.last_run_status) ||
        (b.last_run_at ?? '').localeCompare(a.last_run_at ?? '')
      );
  }
}

/** The rows the view shows, in its order (ties by name, so the order is stable). */
export function applyView(items: Schedule[], view: TableView): Schedule[] {
  const rows = items.filter(
    (schedule) =>
      matchesSearch(schedule, view.q) &&
      (view.type === '' || schedule.scan_type === view.type) &&
      (view.enabled === '' || schedule.enabled === (view.enabled === 'yes')) &&
      (view.last === '' || schedule.last_run_status === view.last),
  );
  const sign = view.dir === 'asc' ? 1 : -1;
  return rows.sort((a, b) => sign * compare(a, b, view.sort) || compare(a, b, 'name'));
}
