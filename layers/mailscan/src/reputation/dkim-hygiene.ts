import type { Severity } from '../../../../lib/severity.ts';
import { finding, type ReportFinding } from '../catalogue.ts';
import type { ReputationInput } from './context.ts';
import type { CheckResult } from './check-result.ts';

export interface DkimKeyVerdict {
  selector: string;
  key_type: string;
  bits: number | null;
  hash_algorithms: string[];
  /** unknown: posture could not tell the key's size or type, so nothing is claimed about it. */
  verdict: 'ok' | 'weak' | 'unknown';
  reasons: string[];
}

/**
 * Key hygiene of the DKIM keys posture found. RSA under 1024 bits is high (RFC 8301 forbids it
 * for verification), under 2048 medium; a key restricted to SHA-1 (h=sha1) is medium because
 * rsa-sha1 is deprecated (RFC 8301). Ed25519 (RFC 8463) is fine at its fixed size.
 */
export function checkDkimHygiene(input: ReputationInput): CheckResult<{ keys: DkimKeyVerdict[] }> {
  const findings: ReportFinding[] = [];
  const keys = input.dkimKeys.map((key): DkimKeyVerdict => {
    const keyType = key.keyType.toLowerCase();
    const hashes = key.hashAlgorithms.map((hash) => hash.toLowerCase());
    const base = { selector: key.selector, key_type: keyType, bits: key.bits, hash_algorithms: hashes };
    const problems: { severity: Severity; reason: string }[] = [];
    if (keyType === 'rsa' && key.bits !== null) {
      if (key.bits < 1024) problems.push({ severity: 'high', reason: `RSA key of ${key.bits} bits is under 1024` });
      else if (key.bits < 2048) problems.push({ severity: 'medium', reason: `RSA key of ${key.bits} bits is under 2048` });
    }
    // An empty h= list means every algorithm is allowed (RFC 6376 §3.6.1), so only h=sha1 alone is deprecated.
    if (hashes.length > 0 && hashes.every((hash) => hash === 'sha1'))
      problems.push({ severity: 'medium', reason: 'the key allows only sha1 (h=sha1): rsa-sha1 is deprecated' });
    if (problems.length === 0) {
      const known = keyType === 'ed25519' || (keyType === 'rsa' && key.bits !== null);
      return { ...base, verdict: known ? 'ok' : 'unknown', reasons: [] };
    }
    const reasons = problems.map((problem) => problem.reason);
    const severity = problems.some((problem) => problem.severity === 'high') ? 'high' : 'medium';
    findings.push(
      finding('mailscan.dkim.weak_key', severity, `DKIM selector ${key.selector}: ${reasons.join('; ')}.`, {
        selector: key.selector,
        key_type: keyType,
        bits: key.bits,
        hash_algorithms: hashes,
        reasons,
      }),
    );
    return { ...base, verdict: 'weak', reasons };
  });
  return { status: 'ok', data: { keys }, findings, errors: [] };
}
