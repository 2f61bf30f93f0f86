import { createHash } from 'node:crypto';
import { finding } from '../catalogue.ts';
import { FetchError, type FetchErrorCode } from '../../../../lib/http/safe-fetch.ts';
import type { CheckError, ReputationContext, ReputationInput } from './context.ts';
import { checkError, errorMessage, type CheckResult } from './check-result.ts';
import { findBimiRecord, parseBimiTags } from './bimi-record.ts';
import { reputationDefaults } from './defaults.ts';
import type { VmcReason, VmcValidation } from './vmc.ts';
import { loadVmc } from '../on-demand.ts';

export interface BimiData {
  /** found / absent / invalid (unusable record) / declined (empty l= and a=) / unknown (DNS). */
  state: 'absent' | 'found' | 'invalid' | 'declined' | 'unknown';
  record_name?: string;
  record?: string;
  location?: string | null;
  authority?: string | null;
  problems?: string[];
  svg?: { status: 'fetched' | 'failed' | 'error' | 'not_published'; bytes?: number; sha256?: string; tiny_ps?: boolean; error?: string };
  vmc?: {
    /** unverified: nothing failed, but something could not be checked (listed in errors). */
    status: 'valid' | 'invalid' | 'unverified' | 'error' | 'not_published';
    reasons?: VmcReason[];
    chain?: VmcValidation['chain'];
    logo?: VmcValidation['logo'];
    certificate?: VmcValidation['certificate'];
    messages?: string[];
    error?: string;
  };
}

/**
 * Refusals that are the publisher's doing (plain-http URL, private address, oversize body, redirect
 * loop, missing host): the asset is unusable for every receiver, so they are outcomes. Timeouts and
 * network errors may be ours, so they are check errors.
 */
const publisherFaults = new Set<FetchErrorCode>([
  'bad_url',
  'scheme_not_allowed',
  'host_not_found',
  'address_blocked',
  'too_large',
  'too_many_redirects',
]);

type Fetched = { ok: true; body: Uint8Array } | { ok: false; definitive: boolean; message: string };

async function fetchAsset(url: string, maxBytes: number, ctx: ReputationContext): Promise<Fetched> {
  try {
    const response = await ctx.fetch(url, { maxBytes });
    if (response.status < 200 || response.status > 299) return { ok: false, definitive: true, message: `HTTP ${response.status}` };
    return { ok: true, body: response.body };
  } catch (error) {
    const definitive = error instanceof FetchError && publisherFaults.has(error.code);
    return { ok: false, definitive, message: error instanceof FetchError ? `${error.code}: ${error.message}` : errorMessage(error) };
  }
}

export async function checkBimi(input: ReputationInput, ctx: ReputationContext): Promise<CheckResult<BimiData>> {
  const lookup = await findBimiRecord(input.domain, ctx.resolver);
  if (lookup.status === 'unknown') {
    return {
      status: 'error',
      data: { state: 'unknown', record_name: lookup.name },
      findings: [],
      errors: [checkError('bimi', `${lookup.name}: DNS ${lookup.message}`)],
    };
  }
  if (lookup.status === 'absent') return { status: 'ok', data: { state: 'absent' }, findings: [], errors: [] };
  if (lookup.records.length > 1) {
    return {
      status: 'ok',
      data: { state: 'invalid', record_name: lookup.name, problems: ['more than one v=BIMI1 record'] },
      findings: [],
      errors: [],
    };
  }
  const record = lookup.records[0];
  const tags = parseBimiTags(record);
  const location = tags.l || null;
  const authority = tags.a && tags.a !== 'self' ? tags.a : null;
  const base: BimiData = { state: 'found', record_name: lookup.name, record, location, authority };
  if (!location && !authority) return { status: 'ok', data: { ...base, state: 'declined' }, findings: [], errors: [] };
  const problems = [location, authority]
    .filter((url): url is string => url !== null && !url.startsWith('https:'))
    .map((url) => `${url} is not an https: URL (BIMI requires HTTPS)`);

  const [svgFetch, pemFetch] = await Promise.all([
    location ? fetchAsset(location, reputationDefaults.bimi.svgMaxBytes, ctx) : null,
    authority ? fetchAsset(authority, reputationDefaults.bimi.vmcMaxBytes, ctx) : null,
  ]);
  const errors: CheckError[] = [];
  const svg = describeSvg(svgFetch);
  if (svgFetch && !svgFetch.ok && !svgFetch.definitive) errors.push(checkError('bimi', `SVG ${location}: ${svgFetch.message}`));

  let vmc: NonNullable<BimiData['vmc']> = { status: 'not_published' };
  if (pemFetch && !pemFetch.ok) {
    vmc = pemFetch.definitive
      ? { status: 'invalid', reasons: ['fetch_failed'], messages: [`VMC ${authority}: ${pemFetch.message}`] }
      : { status: 'error', error: pemFetch.message };
    if (!pemFetch.definitive) errors.push(checkError('bimi', `VMC ${authority}: ${pemFetch.message}`));
  } else if (pemFetch?.ok) {
    let roots: string[] | Error;
    try {
      roots = ctx.config.vmcRoots();
    } catch (error) {
      roots = new Error(errorMessage(error));
    }
    if (roots instanceof Error) {
      // Roots that cannot be read validate nothing: the VMC is not judged, and the check is an error.
      vmc = { status: 'error', error: `VMC trust roots: ${roots.message}` };
      errors.push(checkError('bimi', `VMC ${authority}: the VMC trust roots could not be read: ${roots.message}`));
    } else {
      // Loaded only for a VMC to validate: the X.509 stack costs ~150 ms of start-up that most scans
      // (no BIMI authority evidence) would pay for nothing.
      const { validateVmc } = await loadVmc();
      const validation = await validateVmc({
        pem: new TextDecoder().decode(pemFetch.body),
        svg: svgFetch?.ok ? svgFetch.body : null,
        domain: input.domain,
        roots,
        now: ctx.now(),
      });
      vmc = { status: vmcStatus(validation, svgFetch), ...validation };
      // A logo left uncompared is already listed as the SVG fetch error.
      if (vmc.status === 'unverified' && validation.chain === 'not_checked')
        errors.push(
          checkError('bimi', `VMC ${authority}: chain not validated: no VMC trust roots are configured (see docs/mailscan-reputation.md)`),
        );
    }
  }

  const findings =
    vmc.status === 'invalid'
      ? [
          finding('mailscan.bimi.vmc_invalid', 'high', `The BIMI VMC at ${authority} is invalid: ${vmc.reasons![0]}`, {
            domain: input.domain,
            record_name: lookup.name,
            authority,
            reason: vmc.reasons![0],
            reasons: vmc.reasons,
            messages: vmc.messages,
            ...(vmc.certificate
              ? { subject: vmc.certificate.subject, issuer: vmc.certificate.issuer, not_after: vmc.certificate.not_after }
              : {}),
          }),
        ]
      : [];
  const data: BimiData = { ...base, ...(problems.length > 0 ? { problems } : {}), svg, vmc };
  return { status: errors.length > 0 ? 'error' : 'ok', data, findings, errors };
}

/** A definite failure makes the VMC invalid whatever could not be checked; otherwise gaps make it unverified. */
function vmcStatus(validation: VmcValidation, svgFetch: Fetched | null): NonNullable<BimiData['vmc']>['status'] {
  if (validation.reasons.length > 0) return 'invalid';
  const logoUnchecked = validation.logo === 'not_compared' && svgFetch !== null && !svgFetch.ok && !svgFetch.definitive;
  return validation.chain === 'not_checked' || logoUnchecked ? 'unverified' : 'valid';
}

function describeSvg(fetched: Fetched | null): NonNullable<BimiData['svg']> {
  if (!fetched) return { status: 'not_published' };
  if (!fetched.ok) return { status: fetched.definitive ? 'failed' : 'error', error: fetched.message };
  const text = new TextDecoder().decode(fetched.body);
  return {
    status: 'fetched',
    bytes: fetched.body.length,
    sha256: createHash('sha256').update(fetched.body).digest('hex'),
    tiny_ps: /baseProfile\s*=\s*["']tiny-ps["']/.test(text),
  };
}
