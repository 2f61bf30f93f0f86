/** A finding's severity, most severe first: the order every list, sort and threshold uses. */
export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

/** 0 for critical up to 4 for info: lower is more severe. */
export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}
