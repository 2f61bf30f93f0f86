/**
 * The token-signing certificates of a WS-Federation metadata document (FederationMetadata.xml).
 * Read with patterns, not an XML parser: a document declaring a DTD or an entity (an XML bomb,
 * an external entity) is refused outright, so no expansion ever happens; the body is bounded by
 * the fetch before it gets here.
 */
import { X509Certificate } from 'node:crypto';

export interface SigningCertificate {
  subject: string;
  issuer: string;
  not_after: string;
  sha1_thumbprint: string;
}

const MAX_CERTIFICATES = 20;

export function signingCertificates(xml: string): SigningCertificate[] | string {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return 'it declares a DTD or entities, which are refused (entity expansion)';
  if (!/<(?:[\w-]+:)?EntityDescriptor[\s>]/.test(xml)) return 'it is not a federation metadata document (no EntityDescriptor)';
  const found = new Map<string, SigningCertificate>();
  const descriptors = xml.matchAll(/<(?:[\w-]+:)?KeyDescriptor\b([^>]*)>([\s\S]*?)<\/(?:[\w-]+:)?KeyDescriptor>/g);
  for (const [, attributes, inner] of descriptors) {
    const use = /\buse\s*=\s*["']([^"']*)["']/.exec(attributes)?.[1];
    if (use !== undefined && use !== 'signing') continue;
    const base64 = /<(?:[\w-]+:)?X509Certificate>([\s\S]*?)<\/(?:[\w-]+:)?X509Certificate>/.exec(inner)?.[1]?.replace(/\s+/g, '');
    if (!base64 || found.has(base64)) continue;
    if (found.size >= MAX_CERTIFICATES) break;
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(Buffer.from(base64, 'base64'));
    } catch {
      return 'a signing X509Certificate does not parse';
    }
    found.set(base64, {
      subject: certificate.subject.replace(/\n/g, ', '),
      issuer: certificate.issuer.replace(/\n/g, ', '),
      not_after: new Date(certificate.validTo).toISOString(),
      sha1_thumbprint: certificate.fingerprint.replace(/:/g, ''),
    });
  }
  if (found.size === 0) return 'it holds no signing certificate';
  return [...found.values()];
}
