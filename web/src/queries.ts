import { useInfiniteQuery, useQuery } from '@tanstack/react-query';
import type { z } from 'zod';
import { FindingList } from '../../shared/domain/finding.ts';
import { IssueDetail, IssueList, IssueRuleList, ScanChangeList } from '../../shared/domain/issue.ts';
import { NotificationRuleList } from '../../shared/domain/notification.ts';
import { CredentialList } from '../../shared/domain/credential-wire.ts';
import { ScanJob, ScanList } from '../../shared/domain/scan-job.ts';
import { ScanTypeList } from '../../shared/domain/scan-type-list.ts';
import { Schedule, ScheduleList } from '../../shared/domain/schedule.ts';
import { api, queryString } from './api.ts';

/** Every item of a listing: its pages of 200 (the API's maximum) fetched one after the other. */
async function allPages<T>(
  path: string,
  filters: Record<string, string>,
  schema: z.ZodType<{ items: T[]; next_cursor: string | null }>,
): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await api(`${path}${queryString({ ...filters, limit: '200', cursor })}`, schema);
    items.push(...page.items);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return items;
}

export function useScanTypes() {
  return useQuery({ queryKey: ['scan-types'], queryFn: () => api('/api/scan-types/', ScanTypeList), staleTime: 300_000 });
}

/**
 * Every schedule of the tenant, all pages (200 each, the API's maximum): the table searches,
 * filters and sorts them in the browser, and the chat looks for duplicates among all of them.
 */
export function useSchedules() {
  return useQuery({
    queryKey: ['schedules'],
    queryFn: () => allPages('/api/scans/schedules/', {}, ScheduleList),
    // While a run is in flight its badge says running: look again until it has finished.
    refetchInterval: (query) => (query.state.data?.some((schedule) => schedule.last_run_status === 'running') ? 1_000 : false),
  });
}

export function useSchedule(id: string) {
  return useQuery({ queryKey: ['schedule', id], queryFn: () => api(`/api/scans/schedules/${encodeURIComponent(id)}/`, Schedule) });
}

export function useScans(filters: Record<string, string | undefined>) {
  return useInfiniteQuery({
    queryKey: ['scans', filters],
    queryFn: ({ pageParam }) => api(`/api/scans/${queryString({ ...filters, limit: '50', cursor: pageParam })}`, ScanList),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
    // Keep the list moving while anything on it is still queued or running.
    refetchInterval: (query) =>
      query.state.data?.pages.some((page) => page.items.some((scan) => scan.status === 'queued' || scan.status === 'running'))
        ? 2_000
        : false,
  });
}

/** The newest `limit` scans of one target and scan type (one call, the target index): a score over time. */
export function useTargetScans(scanType: string, target: string, enabled: boolean, limit = 100) {
  return useQuery({
    queryKey: ['scans', { scan_type: scanType, target, limit }],
    enabled,
    queryFn: async () => (await api(`/api/scans/${queryString({ scan_type: scanType, target, limit: String(limit) })}`, ScanList)).items,
  });
}

export function useScan(id: string) {
  return useQuery({
    queryKey: ['scan', id],
    queryFn: () => api(`/api/scans/${encodeURIComponent(id)}/`, ScanJob),
    refetchInterval: (query) =>
      query.state.data && (query.state.data.status === 'queued' || query.state.data.status === 'running') ? 1_000 : false,
  });
}

/** Every finding of one scan (all pages): a scan page sorts them by severity, so it needs them all. */
export function useScanFindings(scanId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['findings', { scan_id: scanId, all: true }],
    enabled,
    queryFn: () => allPages('/api/findings/', { scan_id: scanId }, FindingList),
  });
}

/** Issues filtered as the address bar says, 50 a page, severity first (the API's one order). */
export function useIssues(filters: Record<string, string | undefined>) {
  return useInfiniteQuery({
    queryKey: ['issues', filters],
    queryFn: ({ pageParam }) => api(`/api/issues/${queryString({ ...filters, limit: '50', cursor: pageParam })}`, IssueList),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (page) => page.next_cursor ?? undefined,
  });
}

export function useIssue(id: string) {
  return useQuery({ queryKey: ['issue', id], queryFn: () => api(`/api/issues/${encodeURIComponent(id)}/`, IssueDetail) });
}

/** The catalogue rules the tenant has issues of: the Issues page's rule picker. */
export function useIssueRules() {
  return useQuery({ queryKey: ['issue-rules'], queryFn: () => api('/api/issues/rules/', IssueRuleList) });
}

/** The issues a finished scan opened, reopened and resolved. */
export function useScanChanges(scanId: string, enabled: boolean) {
  return useQuery({
    queryKey: ['scan-changes', scanId],
    enabled,
    queryFn: () => api(`/api/scans/${encodeURIComponent(scanId)}/changes/`, ScanChangeList),
  });
}

/** The tenant's notification rules (at most 50, one call; admin only, as the API). */
export function useNotificationRules() {
  return useQuery({
    queryKey: ['notification-rules'],
    queryFn: async () => (await api('/api/notifications/', NotificationRuleList)).items,
  });
}

/** The tenant's credentials (at most 100, one call; operators and admins, as the API), never a secret. */
export function useCredentials(enabled = true) {
  return useQuery({
    queryKey: ['credentials'],
    enabled,
    queryFn: async () => (await api('/api/credentials/', CredentialList)).items,
  });
}
