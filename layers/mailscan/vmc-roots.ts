/**
 * The BIMI VMC trust roots the build puts beside the CLI. Their source is the `@postalsys/vmc`
 * package's root store (a devDependency, taken from the issuer list on bimigroup.org); each is
 * pinned here by SHA-256 fingerprint, so a package upgrade that changes a root fails the build
 * instead of silently changing what mailscan trusts. docs/mailscan-reputation.md says how to
 * check a pin against the issuer's own publication, and how to add one.
 */
import { X509Certificate } from 'node:crypto';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readPemCertificates } from './src/reputation/vmc-roots.ts';

export const PINNED_VMC_ROOTS: Record<string, string> = {
  'SSL.com VMC ECC Root CA 2024': '1B:82:E7:F4:91:0B:51:E3:E8:02:A4:93:AC:DC:17:FF:58:EA:C8:B9:EB:7C:09:B5:2A:C6:CD:2E:FB:83:59:8C',
  'SSL.com VMC RSA Root CA 2024': '8F:9D:1B:76:98:88:67:82:A5:99:B4:85:10:65:1C:66:A1:AA:0C:5C:A3:19:20:97:BD:C6:85:34:15:4B:D3:0D',
  'DigiCert Verified Mark Root CA': '50:43:86:C9:EE:89:32:FE:CC:95:FA:DE:42:7F:69:C3:E2:53:4B:73:10:48:9E:30:0F:EE:44:8E:33:C4:6B:42',
  'Entrust Verified Mark Root Certification Authority - VMCR1':
    '78:31:D9:5A:47:D4:25:08:CD:5C:9E:62:64:F9:09:6B:AC:19:F0:4E:B9:B7:C8:BD:D3:5F:FF:C7:1C:18:96:17',
  'GlobalSign Verified Mark Root R42': 'CD:12:2C:B8:77:C6:92:8B:90:17:B0:F0:B8:0D:BD:50:81:96:30:0B:BD:03:CD:73:56:C3:BE:EF:52:4E:7E:0B',
};

function commonName(certificate: X509Certificate): string {
  return /(?:^|\n)CN=(.*)/.exec(certificate.subject)?.[1] ?? certificate.subject;
}

/** Copies the pinned roots into `targetDir` as PEM files; throws when one is missing or differs. */
export async function installVmcRoots(targetDir: string): Promise<string[]> {
  const require = createRequire(import.meta.url);
  const sourceDir = join(dirname(require.resolve('@postalsys/vmc')), '..', 'data', 'root-store');
  const seen = new Map<string, string>();
  for (const file of (await readdir(sourceDir)).filter((name) => name.endsWith('.pem')).sort()) {
    const pem = await readFile(join(sourceDir, file), 'utf8');
    for (const block of pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []) {
      const certificate = new X509Certificate(block);
      const name = commonName(certificate);
      if (PINNED_VMC_ROOTS[name] !== certificate.fingerprint256) {
        throw new Error(`VMC root "${name}" from ${file} is not pinned (fingerprint ${certificate.fingerprint256})`);
      }
      seen.set(name, `${block}\n`);
    }
  }
  const missing = Object.keys(PINNED_VMC_ROOTS).filter((name) => !seen.has(name));
  if (missing.length > 0) throw new Error(`pinned VMC roots missing from the package: ${missing.join(', ')}`);
  await mkdir(targetDir, { recursive: true });
  for (const [name, pem] of seen) await writeFile(join(targetDir, `${name.replace(/[^A-Za-z0-9.-]+/g, '-')}.pem`), pem);
  checkInstalledVmcRoots(targetDir, seen.size);
  return [...seen.keys()];
}

/**
 * Reads the installed roots as a scan reads them (`readPemCertificates`) and throws unless it finds
 * each one: a scan reads them only when it validates a VMC, so a root it could not read must fail
 * the build, not that rare scan.
 */
export function checkInstalledVmcRoots(targetDir: string, expected: number): void {
  const read = readPemCertificates(targetDir);
  if (read.length !== expected) throw new Error(`${targetDir}: a scan reads ${read.length} VMC roots, expected ${expected}`);
}
