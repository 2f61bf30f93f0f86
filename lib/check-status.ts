/** A check's outcome (DESIGN §11): it passed, found something, could not complete, or did not run. */
export const CHECK_STATUSES = ['pass', 'fail', 'error', 'skipped'] as const;
export type CheckStatus = (typeof CHECK_STATUSES)[number];
