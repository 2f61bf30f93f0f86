import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { arc } from 'mailauth/lib/arc/index.js';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { finding, type ReportFinding } from '../catalogue.ts';
import type { Resolver } from '../../../../lib/dns/resolver.ts';
import type { CheckError, RecordedCheck, SurfaceResult } from '../reputation/context.ts';
import { arcStructure } from './arc-structure.ts';
import { HEADER_LIMITS, HeaderInputError, type HeaderLimits } from '../../../../lib/mail-artifacts/header-limits.ts';
import { mailauthResolver } from './mailauth-resolver.ts';
import { readHeaderFields, valueOf, type RawHeaderField } from '../../../../lib/mail-artifacts/message-header.ts';
import { receivedAnomalies, receivedHops } from './received-chain.ts';

/** RSA keys under this many bits are refused as a policy result, as dkimpy's default minkey does. */
const MIN_RSA_BITS = 1024;

export interface HeaderRequest {
  file: string;
  resolver: Resolver;
  now: () => Date;
  limits?: HeaderLimits;
  log?: (event: string, fields?: Record<string, unknown>) => void;
}

/** One DKIM-Signature's verdicts: the body hash (recomputed) and the signature (verified with the published key). */
export interface DkimSignatureVerdict {
  domain: string | null;
  selector: string | null;
  algorithm: string | null;
  canonicalization: string | null;
  body_length_limit: number | null;
  body_hash: 'pass' | 'fail';
  /** mailauth's result: pass, fail (bad signature), neutral (no key, expired, body hash), policy (weak key), temperror. */
  result: string;
  comment: string | null;
  /** rsa-sha1 (RFC 8301 forbids signing with it; still verified and reported). */
  deprecated_algorithm: boolean;
}

type MailauthDkimResult = {
  signingDomain?: string;
  selector?: string;
  algo?: string;
  format?: string;
  bodyHash?: string;
  bodyHashExpecting?: string;
  canonBodyLengthLimit?: number;
  status: { result: string; comment?: string | false };
  signingHeaders?: { keys?: string };
};

/**
 * The header surface for one message: the Received chain, ARC structure and, beyond scanner 0.6.5,
 * DKIM and ARC cryptography by mailauth with the scan's resolver for keys. A message that is not a
 * message, or too large, is an error entry; a key that cannot be fetched is an error entry; only
 * what the message itself shows becomes a finding.
 */
export async function runHeader({
  file,
  resolver,
  now,
  limits = HEADER_LIMITS,
  log = () => {},
}: HeaderRequest): Promise<SurfaceResult<Record<string, unknown>>> {
  const name = basename(file);
  const errors: CheckError[] = [];
  const failed = (message: string): SurfaceResult<Record<string, unknown>> => ({
    status: 'error',
    data: { file: name },
    findings: [],
    errors: [{ surface: 'header', check: 'message', message: `${name}: ${message}` }],
    checks: [{ rules: HEADER_RULES, outcome: 'error', detail: `${name} not read: ${message}` }],
  });
  let bytes: Buffer;
  let fields: RawHeaderField[];
  try {
    const info = await stat(file);
    if (info.size > limits.maxMessageBytes)
      throw new HeaderInputError(`message is ${info.size} bytes, over the ${limits.maxMessageBytes}-byte limit`);
    bytes = await readFile(file);
    fields = readHeaderFields(bytes, limits);
    const signatures = fields.filter((field) => field.key === 'dkim-signature').length;
    if (signatures > limits.maxDkimSignatures)
      throw new HeaderInputError(`message has ${signatures} DKIM signatures, over the limit of ${limits.maxDkimSignatures}`);
  } catch (error) {
    if (error instanceof HeaderInputError || (error as NodeJS.ErrnoException).code !== undefined) return failed((error as Error).message);
    throw error;
  }

  const findings: ReportFinding[] = [];
  const hops = receivedHops(fields, limits);
  for (const anomaly of receivedAnomalies(hops, limits)) {
    findings.push(
      finding('mailscan.header.received_anomaly', anomaly.severity, anomaly.detail, { kind: anomaly.kind, ...hops[anomaly.hop - 1] }),
    );
  }

  const structure = arcStructure(fields, limits);
  for (const anomaly of structure.anomalies) {
    findings.push(
      finding('mailscan.header.arc_anomaly', anomaly.severity, anomaly.detail, {
        kind: anomaly.kind,
        i: anomaly.i,
        component: anomaly.component,
        ...(anomaly.instance === undefined ? {} : { instance: anomaly.instance }),
        sets: structure.sets,
      }),
    );
  }
  if (structure.finalCvFail) {
    const last = structure.sets.at(-1);
    findings.push(
      finding(
        'mailscan.header.arc_seal_broken',
        'high',
        `The final ARC seal (i=${last?.i}, ${last?.d ?? 'unknown domain'}) says cv=fail: the chain had failed before that intermediary.`,
        { i: last?.i, d: last?.d, s: last?.s, cv: 'fail' },
      ),
    );
  }

  const resolve = mailauthResolver(resolver);
  const verified = await dkimVerify(bytes, { resolver: resolve, curTime: now(), minBitLength: MIN_RSA_BITS });
  const dkim: DkimSignatureVerdict[] = [];
  for (const result of verified.results as unknown as MailauthDkimResult[]) {
    if (result.status.result === 'none') continue;
    const verdict: DkimSignatureVerdict = {
      domain: result.signingDomain ?? null,
      selector: result.selector ?? null,
      algorithm: result.algo ?? null,
      canonicalization: result.format ?? 'simple/simple',
      body_length_limit: result.canonBodyLengthLimit ?? null,
      body_hash: result.bodyHash !== undefined && result.bodyHash === result.bodyHashExpecting ? 'pass' : 'fail',
      result: result.status.result,
      comment: result.status.comment || null,
      deprecated_algorithm: result.algo?.toLowerCase() === 'rsa-sha1',
    };
    dkim.push(verdict);
    const evidence = {
      domain: verdict.domain,
      selector: verdict.selector,
      algorithm: verdict.algorithm,
      canonicalization: verdict.canonicalization,
      body_length_limit: verdict.body_length_limit,
    };
    if (verdict.body_hash === 'fail') {
      findings.push(
        finding(
          'mailscan.header.dkim_body_mismatch',
          'critical',
          `The DKIM signature of ${verdict.domain} (s=${verdict.selector}) has a body hash that does not recompute: the body changed after signing.`,
          { ...evidence, body_hash_signed: result.bodyHashExpecting ?? null, body_hash_computed: result.bodyHash ?? null },
        ),
      );
    } else if (verdict.result === 'fail') {
      findings.push(
        finding(
          'mailscan.header.dkim_signature_invalid',
          'high',
          `The DKIM signature of ${verdict.domain} (s=${verdict.selector}) does not verify with the published key although the body hash matches: a signed header changed after signing, or the signature is forged.`,
          { ...evidence, signed_headers: result.signingHeaders?.keys ?? null },
        ),
      );
    } else if (verdict.result !== 'pass') {
      errors.push({
        surface: 'header',
        check: 'dkim',
        message: `${verdict.domain ?? 'unknown domain'} s=${verdict.selector ?? '?'}: ${verdict.result}${verdict.comment ? ` (${verdict.comment})` : ''}`,
      });
    }
  }
  const unverifiable = fields.filter((field) => field.key === 'dkim-signature').length - dkim.length;
  if (unverifiable > 0)
    errors.push({
      surface: 'header',
      check: 'dkim',
      message: `${unverifiable} DKIM signatures use an unsupported algorithm or canonicalization, or lack d= or s=, and were not verified`,
    });

  const structureSound = structure.anomalies.length === 0 && !structure.finalCvFail;
  const arcData = await arcCryptography(verified, resolve, structureSound);
  if (arcData.signatureFinding !== null) findings.push(arcData.signatureFinding);
  if (arcData.error !== null) errors.push({ surface: 'header', check: 'arc', message: arcData.error });
  const dkimErrors = errors.filter((error) => error.check === 'dkim');
  const sets = structure.sets.length;
  const checks: RecordedCheck[] = [
    {
      rules: ['mailscan.header.received_anomaly'],
      outcome: 'ran',
      detail: `the message's ${plural(hops.length, 'Received hop')} read in order`,
    },
    {
      rules: ['mailscan.header.arc_anomaly', 'mailscan.header.arc_seal_broken'],
      outcome: 'ran',
      detail:
        sets === 0
          ? 'the message has no ARC set'
          : `the message's ${plural(sets, 'ARC set')} read: structure ${structure.anomalies.length === 0 ? 'sound' : 'broken'}, final cv=${structure.sets.at(-1)?.cv ?? 'none'}`,
    },
    dkimErrors.length > 0
      ? { rules: DKIM_RULES, outcome: 'error', detail: dkimErrors.map((error) => error.message).join('; ') }
      : {
          rules: DKIM_RULES,
          outcome: 'ran',
          detail:
            dkim.length === 0
              ? 'the message has no DKIM-Signature'
              : `the message's ${plural(dkim.length, 'DKIM-Signature')} verified: ${dkim.map((item) => `${item.domain ?? '?'} s=${item.selector ?? '?'} body hash ${item.body_hash}, signature ${item.result}`).join('; ')}`,
        },
    arcSignatureCheck(arcData, sets, structureSound),
  ];

  // Each finding names its message, so the same anomaly in two messages is two problems (src/finding-identity.ts).
  const message = messageSummary(fields, bytes.length);
  const placed = findings.map((item) => ({ ...item, evidence: { ...item.evidence, message_id: message.message_id } }));
  log('header read', { file: name, hops: hops.length, dkim: dkim.length, arc_sets: structure.sets.length, findings: findings.length });
  return {
    status: 'ok',
    data: {
      file: name,
      message,
      received: { hops },
      dkim,
      arc: {
        sets: structure.sets,
        structure: structure.anomalies.length === 0 ? 'ok' : 'broken',
        result: arcData.result,
        comment: arcData.comment,
        ams: arcData.ams,
      },
    },
    findings: placed,
    errors,
    checks,
  };
}

const DKIM_RULES = ['mailscan.header.dkim_body_mismatch', 'mailscan.header.dkim_signature_invalid'];
const HEADER_RULES = [
  'mailscan.header.received_anomaly',
  'mailscan.header.arc_anomaly',
  'mailscan.header.arc_seal_broken',
  ...DKIM_RULES,
  'mailscan.header.arc_signature_invalid',
];

function plural(count: number, one: string): string {
  return `${count} ${one}${count === 1 ? '' : 's'}`;
}

/** The ARC signatures' check: what mailauth said of the chain, or why its signatures were not judged. */
function arcSignatureCheck(arc: ArcVerdict, sets: number, structureSound: boolean): RecordedCheck {
  const rules = ['mailscan.header.arc_signature_invalid'];
  if (arc.error !== null) return { rules, outcome: 'error', detail: arc.error };
  if (arc.result === 'none') return { rules, outcome: 'ran', detail: 'the message has no ARC chain to verify' };
  if (arc.result === 'fail' && !structureSound && arc.signatureFinding === null)
    return {
      rules,
      outcome: 'skipped',
      detail: `the ${plural(sets, 'ARC set')} do not form a sound chain (see the ARC structure check), so its signatures were not judged`,
    };
  return {
    rules,
    outcome: 'ran',
    detail: `the ARC chain of ${plural(sets, 'set')} verified: ${arc.result}${arc.comment ? ` (${arc.comment})` : ''}; newest ARC-Message-Signature ${arc.ams ?? 'not read'}`,
  };
}

type ArcVerdict = {
  result: string;
  comment: string | null;
  ams: string | null;
  signatureFinding: ReportFinding | null;
  error: string | null;
};

/**
 * mailauth verifies every seal of the chain and the newest AMS (RFC 8617 §5.2: older AMS may break
 * legitimately). Its result is the chain's validation; a failure it attributes to a signature is a
 * finding, one it attributes to DNS is an error entry, and structural failures were already found.
 */
async function arcCryptography(
  verified: Awaited<ReturnType<typeof dkimVerify>>,
  resolve: ReturnType<typeof mailauthResolver>,
  structureSound: boolean,
): Promise<ArcVerdict> {
  const chainData = verified.arc as unknown as
    | {
        chain?: unknown[] | false;
        error?: unknown;
        lastEntry?: { i?: number; messageSignature?: MailauthDkimResult; 'arc-seal'?: { parsed?: Record<string, { value?: string }> } };
      }
    | undefined;
  if (chainData === undefined || (!chainData.chain && !chainData.error))
    return { result: 'none', comment: null, ams: null, signatureFinding: null, error: null };
  const result = await arc(chainData as never, { resolver: resolve, minBitLength: MIN_RSA_BITS });
  const status = result.status as { result: string; comment?: string };
  const comment = status.comment ?? null;
  const ams = chainData.lastEntry?.messageSignature?.status;
  const verdict: ArcVerdict = { result: status.result, comment, ams: ams?.result ?? null, signatureFinding: null, error: null };
  if (status.result !== 'fail' || !structureSound) return verdict;
  const i = chainData.lastEntry?.i ?? null;
  const seal = chainData.lastEntry?.['arc-seal']?.parsed;
  if (comment !== null && /^no key|^unknown key|^invalid public key|^weak key/.test(comment)) {
    verdict.error = `ARC chain could not be verified: ${comment}`;
  } else if (comment !== null && /seal signature validation failed/.test(comment)) {
    verdict.signatureFinding = finding(
      'mailscan.header.arc_signature_invalid',
      'high',
      `An ARC-Seal does not verify (${comment}): the chain was altered after sealing or the seal is forged.`,
      { component: 'AS', i, d: seal?.d?.value ?? null, s: seal?.s?.value ?? null, comment },
    );
  } else if (ams !== undefined && ams.result !== 'pass') {
    if (
      ams.result === 'temperror' ||
      (ams.result === 'neutral' && /no key|key/.test(String(ams.comment)) && !/body hash/.test(String(ams.comment)))
    ) {
      verdict.error = `ARC-Message-Signature i=${i} could not be verified: ${ams.comment || ams.result}`;
    } else {
      verdict.signatureFinding = finding(
        'mailscan.header.arc_signature_invalid',
        'high',
        `The newest ARC-Message-Signature (i=${i}) does not verify (${ams.comment || ams.result}): the message changed after the last intermediary sealed it, or the signature is forged.`,
        {
          component: 'AMS',
          i,
          d: chainData.lastEntry?.messageSignature?.signingDomain ?? null,
          s: chainData.lastEntry?.messageSignature?.selector ?? null,
          comment: ams.comment || ams.result,
        },
      );
    }
  } else {
    verdict.error = `ARC chain failed validation: ${comment ?? 'no reason given'}`;
  }
  return verdict;
}

function messageSummary(fields: readonly RawHeaderField[], size: number): Record<string, unknown> {
  const first = (key: string) => {
    const field = fields.find((item) => item.key === key);
    return field === undefined ? null : valueOf(field).slice(0, 500);
  };
  return {
    from: first('from'),
    subject: first('subject'),
    date: first('date'),
    message_id: first('message-id'),
    size,
    header_fields: fields.length,
    dkim_signatures: fields.filter((field) => field.key === 'dkim-signature').length,
    received: fields.filter((field) => field.key === 'received').length,
  };
}
