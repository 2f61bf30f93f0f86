import type { CredentialFile } from '../../lib/credential.ts';
import type { RunnerFinding } from '../domain/finding.ts';
import type { Coverage } from '../domain/coverage.ts';
import type { CheckStatus } from '../domain/scan-job.ts';
import type { ScanType } from '../domain/scan-types.ts';
import type { Scope } from '../domain/scope.ts';
import type { Logger } from './logger.ts';

export interface RunnerInput {
  /** The job's tenant: artifacts are fetched under it, so another tenant's are out of reach. */
  tenant: string;
  scanType: ScanType;
  target: string;
  scope: Scope;
  /** Aborted when the time left in the invocation (minus a margin) runs out. */
  signal: AbortSignal;
  /** Milliseconds the runner may use. */
  timeoutMs: number;
  logger: Logger;
  /**
   * The tenant credential `scope.credential` names, decrypted by the dispatch for this run only
   * (DESIGN §16): the runner writes it to a 0600 file for `--credential-file` and removes it after.
   * Never logged, never put in a result.
   */
  credential?: CredentialFile;
  /**
   * Facts the service hands the engine beside the scope, written to its `--config` file (never
   * part of the scope, which the tenant writes): nhi's open secret_scan hashes and previous scan.
   */
  context?: Record<string, unknown>;
}

/** One check of the engine's report (docs/engine-contract.md): one per catalogue rule. */
export interface RunnerCheck {
  id: string;
  title: string;
  status: CheckStatus;
  detail: string;
  /** What it examined; a check without it resolves nothing (DESIGN §15). */
  coverage?: Coverage;
}

/** A document the engine produced that its manifest declares (`outputs`): stored as an artifact. */
export interface RunnerOutput {
  name: string;
  purpose: string;
  contentType: string;
  document: unknown;
}

/**
 * What one runner returned for one target. `errors` with findings means partial results (a
 * runner that errored after returning findings); a runner that cannot produce anything throws.
 */
/** A check that could not complete, as the engine said it (the stored job keeps which check). */
export interface RunnerError {
  check: string;
  message: string;
}

export interface RunnerResult {
  findings: RunnerFinding[];
  /** A runner's own words, or an engine's check errors as the engine structured them. */
  errors?: (string | RunnerError)[];
  /** Every check the engine ran or skipped; a runner without them resolves no issue (DESIGN §15). */
  checks?: RunnerCheck[];
  /** Figures of the whole scan its manifest names (`summaryMetrics`). */
  summary?: { score?: number; grade?: string };
  /** The declared documents of the report (an SBOM): the scan engine stores each as an artifact. */
  outputs?: RunnerOutput[];
}

/** Port: runs one scan type against one target. */
export interface ScanRunner {
  readonly name: string;
  run(input: RunnerInput): Promise<RunnerResult>;
}

/** One runner per scan type. */
export type RunnerRegistry = ReadonlyMap<ScanType, ScanRunner>;
