/**
 * The certificate checks, on the chain exactly as the server sent it: validity dates, the host
 * name (RFC 6125), key sizes, signature hashes, and a path from the leaf to a trust anchor (Node's
 * bundled Mozilla roots plus the scope's `extra_roots`) using only sent certificates as
 * intermediates, under OpenSSL's rules for issuers (CA:TRUE, keyCertSign, path length). Signatures
 * are verified with OpenSSL through `crypto.X509Certificate`.
 */
import { X509Certificate } from 'node:crypto';
import { rootCertificates } from 'node:tls';
import { TLS_RULE_IDS, type TlsRuleId } from './catalogue.ts';
import { caConstraints, mayIssue } from './ca-constraints.ts';
import { type CertificateNames, matchingNames, parseSubjectAltName } from './hostname.ts';

export type CertificateRule = Extract<TlsRuleId, `tls.cert.${string}`>;

export const CERTIFICATE_RULES = TLS_RULE_IDS.filter((id): id is CertificateRule => id.startsWith('tls.cert.'));

export interface CertificateProblem {
  rule: CertificateRule;
  detail: string;
  evidence: Record<string, unknown>;
}

export interface ChainInput {
  /** DER certificates as sent, leaf first. */
  chain: readonly Buffer[];
  /** The name clients connect with (the SNI, else the host). */
  host: string;
  /** PEM text of extra trust anchors (one or more certificates). */
  extraRoots?: readonly string[];
  now: Date;
}

export interface ChainReport {
  problems: CertificateProblem[];
  /** What the checks saw, for details of passing checks. */
  leaf: { subject: string; issuer: string; notAfter: string; names: string[] };
  trustedBy?: string;
}

const EXPIRES_SOON_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

let mozillaRoots: X509Certificate[] | undefined;

/** Node's bundled Mozilla store, parsed at first use. */
function bundledRoots(): X509Certificate[] {
  mozillaRoots ??= rootCertificates.map((pem) => new X509Certificate(pem));
  return mozillaRoots;
}

/** Every certificate in a PEM text. */
export function certificatesInPem(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

function commonName(distinguishedName: string): string | undefined {
  const lines = distinguishedName.split('\n').filter((line) => line.startsWith('CN='));
  return lines.at(-1)?.slice(3);
}

function label(cert: X509Certificate): string {
  return commonName(cert.subject) ?? cert.subject.replace(/\n/g, ', ');
}

function selfSigned(cert: X509Certificate): boolean {
  return cert.checkIssued(cert) && safeVerify(cert, cert);
}

function safeVerify(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.verify(issuer.publicKey);
  } catch {
    return false;
  }
}

/** Key size problems: RSA and DSA under 2048 bits, EC under 256. */
export function weakKeyReason(cert: X509Certificate): string | undefined {
  const key = cert.publicKey;
  const details = key.asymmetricKeyDetails ?? {};
  if (
    (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss' || key.asymmetricKeyType === 'dsa') &&
    details.modulusLength
  ) {
    if (details.modulusLength < 2048) return `${key.asymmetricKeyType.toUpperCase()} ${details.modulusLength} bits`;
  }
  if (key.asymmetricKeyType === 'ec' && details.namedCurve) {
    const bits = CURVE_BITS[details.namedCurve];
    if (bits !== undefined && bits < 256) return `EC ${details.namedCurve} (${bits} bits)`;
  }
  return undefined;
}

const CURVE_BITS: Readonly<Record<string, number>> = {
  prime192v1: 192,
  secp192r1: 192,
  secp224r1: 224,
  prime256v1: 256,
  secp256k1: 256,
  secp384r1: 384,
  secp521r1: 521,
  brainpoolP256r1: 256,
  brainpoolP384r1: 384,
  brainpoolP512r1: 512,
};

function weakSignature(cert: X509Certificate): boolean {
  // OpenSSL's names: sha1WithRSAEncryption, ecdsa-with-SHA1, dsa_with_SHA1, md5WithRSAEncryption, ...
  return /sha1|md[245]/i.test(cert.signatureAlgorithm ?? '');
}

export function evaluateChain(input: ChainInput): ChainReport {
  if (input.chain.length === 0) throw new Error('the server sent no certificate');
  const sent = input.chain.map((der) => new X509Certificate(der));
  const leaf = sent[0];
  const now = input.now.getTime();
  const problems: CertificateProblem[] = [];
  const sentIntermediates = sent.slice(1).filter((cert) => !selfSigned(cert));
  const dated = [leaf, ...sentIntermediates];

  for (const cert of dated) {
    const role = cert === leaf ? 'leaf' : 'intermediate';
    if (cert.validToDate.getTime() < now) {
      problems.push({
        rule: 'tls.cert.expired',
        detail: `The ${role} certificate ${label(cert)} expired on ${cert.validToDate.toISOString()}.`,
        evidence: { certificate: label(cert), role, not_after: cert.validToDate.toISOString() },
      });
    }
    if (cert.validFromDate.getTime() > now) {
      problems.push({
        rule: 'tls.cert.not_yet_valid',
        detail: `The ${role} certificate ${label(cert)} is not valid before ${cert.validFromDate.toISOString()}.`,
        evidence: { certificate: label(cert), role, not_before: cert.validFromDate.toISOString() },
      });
    }
  }
  const leafRemainingMs = leaf.validToDate.getTime() - now;
  if (leafRemainingMs >= 0 && leafRemainingMs < EXPIRES_SOON_DAYS * DAY_MS) {
    problems.push({
      rule: 'tls.cert.expires_soon',
      detail: `The certificate expires on ${leaf.validToDate.toISOString()}, in ${Math.floor(leafRemainingMs / DAY_MS)} days.`,
      evidence: { certificate: label(leaf), not_after: leaf.validToDate.toISOString(), days_left: Math.floor(leafRemainingMs / DAY_MS) },
    });
  }

  const names: CertificateNames = { ...parseSubjectAltName(leaf.subjectAltName), commonName: commonName(leaf.subject) };
  if (matchingNames(names, input.host).length === 0) {
    const presented = [...names.dnsNames, ...names.ipAddresses.map((ip) => `IP:${ip}`)];
    problems.push({
      rule: 'tls.cert.hostname_mismatch',
      detail: `No name in the certificate matches ${input.host} (it names ${presented.length > 0 ? presented.join(', ') : `CN=${names.commonName ?? '(none)'}`}).`,
      evidence: { host: input.host, subject_alt_names: presented, common_name: names.commonName ?? null },
    });
  }

  for (const cert of dated) {
    const reason = weakKeyReason(cert);
    if (reason) {
      problems.push({
        rule: 'tls.cert.weak_key',
        detail: `The certificate ${label(cert)} has a weak key: ${reason}.`,
        evidence: { certificate: label(cert), key: reason },
      });
    }
    if (weakSignature(cert)) {
      problems.push({
        rule: 'tls.cert.weak_signature',
        detail: `The certificate ${label(cert)} is signed with ${cert.signatureAlgorithm}.`,
        evidence: { certificate: label(cert), signature_algorithm: cert.signatureAlgorithm },
      });
    }
  }

  const anchors = [...bundledRoots(), ...(input.extraRoots ?? []).flatMap(certificatesInPem)];
  const path = buildPath(leaf, sent.slice(1), anchors);
  if (path.kind === 'missing_issuer') {
    problems.push({
      rule: 'tls.cert.incomplete_chain',
      detail: `The server does not send the issuer of ${label(path.at)} (${path.at.issuer.replace(/\n/g, ', ')}), and it is not a trusted root.`,
      evidence: { missing_issuer: path.at.issuer.replace(/\n/g, ', '), sent: sent.map(label) },
    });
  }
  if (path.kind !== 'trusted') {
    problems.push({
      rule: 'tls.cert.untrusted',
      detail: `The chain does not verify to a trusted root: ${path.reason}.`,
      evidence: { reason: path.reason, sent: sent.map(label) },
    });
  }

  return {
    problems,
    leaf: {
      subject: label(leaf),
      issuer: commonName(leaf.issuer) ?? leaf.issuer,
      notAfter: leaf.validToDate.toISOString(),
      names: [...names.dnsNames, ...names.ipAddresses],
    },
    trustedBy: path.kind === 'trusted' ? label(path.anchor) : undefined,
  };
}

type PathResult =
  | { kind: 'trusted'; anchor: X509Certificate }
  | { kind: 'missing_issuer'; at: X509Certificate; reason: string }
  | { kind: 'untrusted'; reason: string };

/** OpenSSL's default verify depth: intermediates between the leaf and the anchor. */
const MAX_INTERMEDIATES = 100;
/** Signature checks one chain may cost (a chain of same-named certificates could otherwise branch without end). */
const MAX_SIGNATURE_CHECKS = 2_000;

function selfIssued(cert: X509Certificate): boolean {
  return cert.subject === cert.issuer;
}

/**
 * Searches for a path from the leaf through sent certificates to an anchor, as OpenSSL builds one:
 * every issuer must verify the signature below it, may issue (CA:TRUE, keyCertSign where keyUsage
 * is present) and keep its path length constraint; a certificate is used once per path (a loop
 * ends the path); at most MAX_INTERMEDIATES intermediates. Where several sent certificates could
 * issue one, each is tried. When no path reaches an anchor, the reason is the one found deepest.
 */
function buildPath(leaf: X509Certificate, intermediates: X509Certificate[], anchors: X509Certificate[]): PathResult {
  let budget = MAX_SIGNATURE_CHECKS;
  let failure: { depth: number; result: Exclude<PathResult, { kind: 'trusted' }> } | undefined;
  const note = (depth: number, result: Exclude<PathResult, { kind: 'trusted' }>): void => {
    if (!failure || depth > failure.depth) failure = { depth, result };
  };
  const signs = (issuer: X509Certificate, cert: X509Certificate): boolean => {
    if (!cert.checkIssued(issuer)) return false;
    if (budget-- <= 0) throw new Error(`the chain offers more than ${MAX_SIGNATURE_CHECKS} candidate issuers`);
    return safeVerify(cert, issuer);
  };
  /** Why `issuer`, placed above `path`, may not issue its top certificate; undefined when it may. */
  const refusal = (issuer: X509Certificate, path: readonly X509Certificate[], anchor: boolean): string | undefined => {
    const current = path.at(-1)!;
    const why = mayIssue(issuer, anchor, selfSigned(issuer));
    if (why) return `${label(issuer)} may not issue ${label(current)}: ${why}`;
    const pathLen = caConstraints(issuer).basic?.pathLen;
    // OpenSSL counts the intermediates below the issuer that are not self-issued.
    const below = path.slice(1).filter((cert) => !selfIssued(cert)).length;
    if (path.length > 1 && pathLen !== undefined && below > pathLen)
      return `${label(issuer)} allows ${pathLen} intermediate(s) below it (pathlen:${pathLen}) and has ${below}`;
    return undefined;
  };

  const extend = (path: X509Certificate[]): X509Certificate | undefined => {
    const current = path.at(-1)!;
    const depth = path.length;
    let candidates = 0;
    for (const anchor of anchors) {
      if (anchor.fingerprint256 === current.fingerprint256) return anchor;
      if (!signs(anchor, current)) continue;
      candidates++;
      const why = refusal(anchor, path, true);
      if (!why) return anchor;
      note(depth, { kind: 'untrusted', reason: why });
    }
    if (selfSigned(current)) {
      note(depth, { kind: 'untrusted', reason: `${label(current)} is self-signed and not a trusted root` });
      return undefined;
    }
    for (const next of intermediates) {
      if (path.includes(next) || !signs(next, current)) continue;
      candidates++;
      const why = refusal(next, path, false);
      if (why) {
        note(depth, { kind: 'untrusted', reason: why });
        continue;
      }
      if (path.length > MAX_INTERMEDIATES) {
        note(depth, { kind: 'untrusted', reason: `the chain has more than ${MAX_INTERMEDIATES} intermediates` });
        continue;
      }
      const anchor = extend([...path, next]);
      if (anchor) return anchor;
    }
    if (candidates > 0) return undefined;
    const looped = path.slice(0, -1).find((cert) => current.checkIssued(cert));
    const named = intermediates.find((candidate) => !path.includes(candidate) && candidate.subject === current.issuer);
    if (looped)
      note(depth, { kind: 'untrusted', reason: `the chain loops: ${label(current)} is issued by ${label(looped)}, already below it` });
    else if (named)
      note(depth, { kind: 'untrusted', reason: `the signature on ${label(current)} does not verify with ${label(named)}'s key` });
    else note(depth, { kind: 'missing_issuer', at: current, reason: `the issuer of ${label(current)} is neither sent nor a trusted root` });
    return undefined;
  };

  const anchor = extend([leaf]);
  if (anchor) return { kind: 'trusted', anchor };
  return failure?.result ?? { kind: 'untrusted', reason: 'no path to a trusted root' };
}
