import type { CheckError, SurfaceResult } from './context.ts';

/** Each reputation check reports like a surface: its own status, data, findings and errors. */
export type CheckResult<T> = SurfaceResult<T>;

export function checkError(check: string, message: string): CheckError {
  return { surface: 'reputation', check, message };
}

/** A check that reports only data. */
export function ok<T>(data: T): CheckResult<T> {
  return { status: 'ok', data, findings: [], errors: [] };
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
