/** The parsers m365scan applies to what the scanned party serves: MTA-STS policies and federation metadata. */
import { describe, expect, it } from 'vitest';
import { mxMatches, parsePolicy } from '../src/checks/mta-sts.ts';
import { signingCertificates } from '../src/federation-metadata.ts';
import { makeTestCa } from './helpers/pki.ts';

describe('MTA-STS policies (RFC 8461)', () => {
  it('matches a wildcard pattern against one label only', () => {
    expect(mxMatches('*.mail.protection.outlook.com', 'contoso-com.mail.protection.outlook.com')).toBe(true);
    expect(mxMatches('*.mail.protection.outlook.com', 'a.b.mail.protection.outlook.com')).toBe(false);
    expect(mxMatches('*.mail.protection.outlook.com', 'mail.protection.outlook.com')).toBe(false);
    expect(mxMatches('mx.example.com', 'mx.example.com')).toBe(true);
    expect(mxMatches('mx.example.com', 'mx2.example.com')).toBe(false);
  });

  it('reads a policy with CRLF lines and refuses one without version, mode or mx', () => {
    expect(parsePolicy('version: STSv1\r\nmode: enforce\r\nmx: *.mail.protection.outlook.com\r\nmax_age: 604800\r\n')).toEqual({
      mode: 'enforce',
      mx: ['*.mail.protection.outlook.com'],
      max_age: 604800,
    });
    expect(parsePolicy('mode: enforce\nmx: a.example\n')).toBe('version is not STSv1');
    expect(parsePolicy('version: STSv1\nmode: strict\nmx: a.example\n')).toBe('mode is not enforce, testing or none');
    expect(parsePolicy('version: STSv1\nmode: enforce\n')).toBe('no mx line');
    expect(parsePolicy('<html><body>Not found</body></html>')).toBe('version is not STSv1');
  });
});

describe('federation metadata', () => {
  it('reads the signing certificates, not the encryption one, and refuses DTDs and entities', async () => {
    const ca = await makeTestCa();
    const [signing, encryption] = await Promise.all([ca.tokenSigning('Signing', 10), ca.tokenSigning('Encryption', 300)]);
    const metadata = `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"><KeyDescriptor use="encryption"><X509Certificate>${encryption}</X509Certificate></KeyDescriptor><KeyDescriptor use="signing"><X509Certificate>${signing}</X509Certificate></KeyDescriptor></EntityDescriptor>`;
    const certificates = signingCertificates(metadata);
    expect(Array.isArray(certificates) && certificates.map((certificate) => certificate.subject)).toEqual(['CN=Signing']);
    expect(signingCertificates(`<!DOCTYPE x [<!ENTITY a "b">]>${metadata}`)).toMatch(/refused/);
    expect(signingCertificates('<html>no</html>')).toMatch(/not a federation metadata document/);
    expect(signingCertificates(metadata.replace(signing, 'bm90IGEgY2VydA=='))).toBe('a signing X509Certificate does not parse');
  });
});
