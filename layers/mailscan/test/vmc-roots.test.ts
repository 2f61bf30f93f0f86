import { X509Certificate } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PINNED_VMC_ROOTS, installVmcRoots } from '../vmc-roots.ts';

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
});
