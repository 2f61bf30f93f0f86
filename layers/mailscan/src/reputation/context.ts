import type { ReportFinding } from '../catalogue.ts';
import type { Resolver } from '../../../../lib/dns/resolver.ts';
import type { Fetch } from '../../../../lib/http/fetch.ts';
import type { VendorConfig } from '../vendors/vendor.ts';

/** A check that could not complete; it is listed in the report, never turned into a finding. */
export interface CheckError {
  surface: string;
  check: string;
  message: string;
}

/** What the posture surface hands to the reputation checks, so nothing is resolved twice. */
export interface ReputationInput {
  domain: string;
  /** MX hosts with their resolved addresses (already looked up by posture). */
  mx: { host: string; preference: number; ipv4: string[]; ipv6: string[] }[];
  /** SPF lookup count from posture's expansion; null when there is no SPF record. */
  spfLookups: number | null;
  /** DKIM keys found by posture. */
  dkimKeys: { selector: string; keyType: string; bits: number | null; hashAlgorithms: string[] }[];
}

/**
 * ReputationInput as posture produces it: each field settles as soon as its posture check has its
 * answer, so a reputation check starts when its own input is ready, not when all of posture is.
 */
export type PendingReputationInput = { domain: string } & { [K in Exclude<keyof ReputationInput, 'domain'>]: Promise<ReputationInput[K]> };

/** Environment and configuration for the reputation checks (DESIGN §6). */
export interface ReputationContext {
  resolver: Resolver;
  /**
   * HTTP GET with size cap, timeout and SSRF guard; see http/safe-fetch.ts. `timeoutMs` lets a
   * vendor API keep its own configured timeout under the fetch's default one.
   */
  fetch: Fetch;
  config: {
    dnsbl: { ipZones: string[]; domainZones: string[] };
    trustlist: { zones: string[] };
    /** Spamhaus DQS key (MAILSCAN_SPAMHAUS_DQS_KEY): rewrites Spamhaus zones to the DQS form. */
    spamhausDqsKey?: string;
    senderScore: VendorConfig;
    threatIntel: VendorConfig;
    /**
     * PEM roots trusted for VMC validation; defaults to the bundled BIMI roots, which are read from
     * the layer's files only when a VMC is validated (the build checked them), not by every scan.
     * Throws when they cannot be read: the VMC check is then an error.
     */
    vmcRoots: () => string[];
  };
  now: () => Date;
  log: (event: string, fields?: Record<string, unknown>) => void;
}

/**
 * One check as the code that ran it records it: the catalogue rules it decides, whether it ran,
 * was skipped (and why, in words) or could not complete, what it found out, and what it examined
 * (the DKIM selectors read, the block lists asked), for the report's `checks` (DESIGN §11, §15).
 */
export interface RecordedCheck {
  rules: readonly string[];
  outcome: 'ran' | 'skipped' | 'error';
  detail: string;
  selectors?: readonly string[];
  lists?: readonly string[];
  /**
   * The rules whose checks this one reads instead of asking anything itself (an adversary
   * technique reads the base findings): it is no better than they are, so one of them that could
   * not complete makes it an error and one that did not run makes it skipped.
   */
  reads?: readonly string[];
}

export interface SurfaceResult<T> {
  status: 'ok' | 'error' | 'skipped';
  data: T;
  findings: ReportFinding[];
  errors: CheckError[];
  /**
   * The surface's checks as they ran. A rule of the surface named by none is an error: by the
   * surface's errors when it failed as a whole (a deadline, a fault), else "no check reported it".
   */
  checks?: RecordedCheck[];
}
