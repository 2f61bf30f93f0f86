import { getDomain } from 'tldts';
import { parseLogotype, logoMatches, type LogotypeImage } from './logotype.ts';
import * as x509 from './x509.ts';

/**
 * Validation of a BIMI Verified Mark Certificate: PKIX chain to a trusted VMC root, validity
 * dates, the BIMI EKU, the domain in the SAN, and the logotype matching the published SVG.
 */
export type VmcReason =
  | 'fetch_failed'
  | 'parse_error'
  | 'chain_untrusted'
  | 'expired'
  | 'not_yet_valid'
  | 'eku_missing'
  | 'domain_mismatch'
  | 'logotype_missing'
  | 'logo_hash_mismatch';

/** Most fundamental first: the first reason is the one a finding leads with. */
export const reasonOrder: readonly VmcReason[] = [
  'fetch_failed',
  'parse_error',
  'chain_untrusted',
  'expired',
  'not_yet_valid',
  'eku_missing',
  'domain_mismatch',
  'logotype_missing',
  'logo_hash_mismatch',
];

export const BIMI_EKU = '1.3.6.1.5.5.7.3.31';
const LOGOTYPE_EXTENSION = '1.3.6.1.5.5.7.1.12';
const MAX_PATH = 5;

export interface VmcValidation {
  reasons: VmcReason[];
  /** not_checked: no trust roots are configured, so the chain could be neither trusted nor refused. */
  chain: 'trusted' | 'untrusted' | 'not_checked';
  logo: 'matches' | 'mismatch' | 'not_compared' | 'missing';
  certificate?: { subject: string; issuer: string; serial: string; not_before: string; not_after: string; san: string[] };
  messages: string[];
}

export interface VmcInput {
  pem: string;
  /** The SVG as served at the record's l= URL; null when none was published or fetched. */
  svg: Uint8Array | null;
  domain: string;
  roots: string[];
  now: Date;
}

export async function validateVmc(input: VmcInput): Promise<VmcValidation> {
  const certs = parseCertificates(input.pem);
  if (!certs || certs.length === 0)
    return { reasons: ['parse_error'], chain: 'untrusted', logo: 'missing', messages: ['no certificate in the VMC PEM'] };
  const [leaf, ...pool] = certs as [x509.X509Certificate, ...x509.X509Certificate[]];
  const anchors = input.roots.flatMap((pem) => parseCertificates(pem) ?? []);
  const reasons = new Set<VmcReason>();
  const messages: string[] = [];

  const path = anchors.length === 0 ? null : await pathToAnchor(leaf, pool, anchors, 0);
  const chain = anchors.length === 0 ? 'not_checked' : path ? 'trusted' : 'untrusted';
  if (chain === 'untrusted') {
    reasons.add('chain_untrusted');
    messages.push(`no path from "${leaf.issuer}" to a trusted VMC root`);
  }

  for (const cert of [leaf, ...(path ? path.slice(0, -1) : pool)]) {
    if (input.now > cert.notAfter) {
      reasons.add('expired');
      messages.push(`"${cert.subject}" expired ${cert.notAfter.toISOString()}`);
    }
    if (input.now < cert.notBefore) {
      reasons.add('not_yet_valid');
      messages.push(`"${cert.subject}" is valid from ${cert.notBefore.toISOString()}`);
    }
  }

  const usages = leaf.getExtension(x509.ExtendedKeyUsageExtension)?.usages.map(String) ?? [];
  if (!usages.includes(BIMI_EKU)) {
    reasons.add('eku_missing');
    messages.push(`the leaf's extended key usages (${usages.join(', ') || 'none'}) lack ${BIMI_EKU}`);
  }

  const san =
    leaf
      .getExtension(x509.SubjectAlternativeNameExtension)
      ?.names.items.filter((name) => name.type === 'dns')
      .map((name) => name.value.toLowerCase().replace(/\.$/, '')) ?? [];
  const covered = coveredNames(input.domain);
  if (!san.some((name) => covered.has(name))) {
    reasons.add('domain_mismatch');
    messages.push(`SAN [${san.join(', ')}] names neither ${[...covered].join(' nor ')}`);
  }

  const logo = checkLogo(leaf, input.svg);
  if (logo === 'missing') reasons.add('logotype_missing');
  if (logo === 'mismatch') reasons.add('logo_hash_mismatch');

  return {
    reasons: reasonOrder.filter((reason) => reasons.has(reason)),
    chain,
    logo,
    certificate: {
      subject: leaf.subject,
      issuer: leaf.issuer,
      serial: leaf.serialNumber,
      not_before: leaf.notBefore.toISOString(),
      not_after: leaf.notAfter.toISOString(),
      san,
    },
    messages,
  };
}

/**
 * The names a VMC may carry for the domain: the domain itself or its organizational domain
 * (BIMI: the Author Domain or its Organizational Domain). Wildcards do not count: the VMC
 * Requirements forbid wildcard SANs.
 */
function coveredNames(domain: string): Set<string> {
  const normalised = domain.toLowerCase().replace(/\.$/, '');
  const organizational = getDomain(normalised, { allowPrivateDomains: false });
  return new Set([normalised, ...(organizational ? [organizational] : [])]);
}

function checkLogo(leaf: x509.X509Certificate, svg: Uint8Array | null): VmcValidation['logo'] {
  const extension = leaf.getExtension(LOGOTYPE_EXTENSION);
  if (!extension) return 'missing';
  let images: LogotypeImage[];
  try {
    images = parseLogotype(new Uint8Array(extension.value)).filter((image) => image.mediaType.toLowerCase() === 'image/svg+xml');
  } catch {
    return 'missing';
  }
  if (images.length === 0) return 'missing';
  if (!svg) return 'not_compared';
  return logoMatches(images, svg) ? 'matches' : 'mismatch';
}

function parseCertificates(pem: string): x509.X509Certificate[] | null {
  try {
    return x509.PemConverter.decode(pem).map((der) => new x509.X509Certificate(der));
  } catch {
    return null;
  }
}

/** The intermediates from `cert` up to and including the trust anchor that signs the last one. */
async function pathToAnchor(
  cert: x509.X509Certificate,
  pool: x509.X509Certificate[],
  anchors: x509.X509Certificate[],
  depth: number,
): Promise<x509.X509Certificate[] | null> {
  for (const anchor of anchors) {
    if (await issuedBy(cert, anchor)) return [anchor];
  }
  if (depth >= MAX_PATH) return null;
  for (const candidate of pool) {
    if (candidate === cert || !candidate.getExtension(x509.BasicConstraintsExtension)?.ca) continue;
    if (!(await issuedBy(cert, candidate))) continue;
    const rest = await pathToAnchor(
      candidate,
      pool.filter((other) => other !== candidate),
      anchors,
      depth + 1,
    );
    if (rest) return [candidate, ...rest];
  }
  return null;
}

async function issuedBy(cert: x509.X509Certificate, issuer: x509.X509Certificate): Promise<boolean> {
  if (cert.issuer !== issuer.subject) return false;
  try {
    return await cert.verify({ publicKey: issuer.publicKey, signatureOnly: true });
  } catch {
    return false;
  }
}
