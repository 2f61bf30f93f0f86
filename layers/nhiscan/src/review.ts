/**
 * What every provider's review shares: the settings, the scanner's own time windows, the report,
 * and how a failed call becomes an `error` check with words, never a pass.
 */
import type { ReportBuilder } from '../../../lib/report.ts';
import type { NhiRuleId } from './catalogue.ts';
import type { Settings } from './scope.ts';

export const DAY_MS = 86_400_000;

export interface ReviewContext {
  report: ReportBuilder;
  settings: Settings;
  /** The scan's clock (tests move it; moto cannot backdate a key). */
  now: () => Date;
  /** When this scan started: a last use from then on is the scanner's own. */
  startedAt: Date;
  /** The previous nhi scan of the alias: a last use inside it is the scanner's own. */
  previousScan?: { startedAt: Date; finishedAt: Date };
  signal: AbortSignal;
  requestTimeoutMs: number;
  progress: (event: string, fields?: Record<string, unknown>) => void;
  /** Removes every secret string from a message before it is reported. */
  redact: (text: string) => string;
}

/** A provider answered with something that is not a verdict (5xx, throttling, garbage, timeout). */
export class ProviderError extends Error {
  override readonly name = 'ProviderError';
}

/** The credential may not read what the check needs (403, missing scope): an error, never a pass. */
export class SelfInspectionDenied extends Error {
  override readonly name = 'SelfInspectionDenied';
}

/** The provider rejected the credential itself (401, InvalidClientTokenId). */
export class CredentialRejected extends Error {
  override readonly name = 'CredentialRejected';
}

/** Records `error` on `rules` with the reason the call failed. */
export function errorChecks(context: ReviewContext, rules: readonly NhiRuleId[], error: unknown): void {
  const message =
    error instanceof SelfInspectionDenied
      ? `the credential cannot read its own metadata: ${error.message}`
      : error instanceof Error
        ? error.message
        : String(error);
  context.report.error(rules, context.redact(message));
}

/**
 * The verdict when a provider's first call (whoami) failed: a rejected credential fails
 * `nhi.credential.invalid` and skips the provider's other rules; anything else is an error on all of
 * them, never a pass. `why` follows the provider's message ("the vault entry is stale."); `evidence`
 * names the provider (and, for AWS, the masked key id).
 */
export function firstCallFailed(
  context: ReviewContext,
  rules: readonly NhiRuleId[],
  error: unknown,
  failure: { why: string; evidence: Record<string, unknown> },
): 'invalid' | 'unknown' {
  if (error instanceof CredentialRejected) {
    context.report.fail('nhi.credential.invalid', {
      detail: `${error.message}: ${failure.why}`,
      evidence: failure.evidence,
      fingerprint_key: 'credential',
      subject: 'the credential',
    });
    context.report.skip(rules, 'the provider rejects the credential (nhi.credential.invalid)');
    return 'invalid';
  }
  errorChecks(context, ['nhi.credential.invalid', ...rules], error);
  return 'unknown';
}

export const days = (ms: number): number => Math.floor(ms / DAY_MS);

export const isoDay = (date: Date): string => date.toISOString().slice(0, 10);
