import { X509Certificate } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PINNED_VMC_ROOTS, checkInstalledVmcRoots, installVmcRoots } from '../vmc-roots.ts';

describe('bundled VMC roots', () => {
  it('installs exactly the pinned roots, each a CA certificate with its pinned fingerprint', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vmc-roots-'));
    try {
      const names = await installVmcRoots(dir);
      const files = (await readdir(dir)).filter((name) => name.endsWith('.pem'));
      const certificates = await Promise.all(files.map(async (file) => new X509Certificate(await readFile(join(dir, file)))));

      expect(names.sort()).toEqual(Object.keys(PINNED_VMC_ROOTS).sort());
      expect(certificates).toHaveLength(5);
      for (const certificate of certificates) {
        expect(certificate.ca).toBe(true);
        expect(Object.values(PINNED_VMC_ROOTS)).toContain(certificate.fingerprint256);
        expect(certificate.verify(certificate.publicKey)).toBe(true);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails the build when a scan could not read an installed root (scans read them only to validate a VMC)', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'vmc-roots-'));
    try {
      await installVmcRoots(dir);
      expect(() => checkInstalledVmcRoots(dir, 5)).not.toThrow();

      const [first] = (await readdir(dir)).filter((name) => name.endsWith('.pem'));
      await writeFile(join(dir, first), 'not a certificate\n');
      expect(() => checkInstalledVmcRoots(dir, 5)).toThrow('holds no PEM certificate');

      await writeFile(
        join(dir, first),
        (await readFile(join(dir, (await readdir(dir)).filter((name) => name !== first)[0]), 'utf8')).slice(0, 200),
      );
      expect(() => checkInstalledVmcRoots(dir, 5)).toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
