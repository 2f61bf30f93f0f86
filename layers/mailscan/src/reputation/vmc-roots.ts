import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as x509 from './x509.ts';

/** A trust store file or folder bigger than this is a mistake, not a set of roots. */
const MAX_PEM_BYTES = 1024 * 1024;

/**
 * Every certificate in a PEM file, or in every `*.pem` of a folder, as one PEM text each. Throws on
 * an unreadable path or a file without a parseable certificate, so a broken trust store stops the
 * scan instead of silently trusting nothing.
 */
export function readPemCertificates(path: string): string[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((name) => name.endsWith('.pem'))
        .sort()
        .map((name) => join(path, name))
    : [path];
  return files.flatMap((file) => {
    if (statSync(file).size > MAX_PEM_BYTES) throw new Error(`${file} is larger than ${MAX_PEM_BYTES} bytes`);
    const certificates = x509.PemConverter.decodeWithHeaders(readFileSync(file, 'utf8'))
      .filter((block) => block.type === 'CERTIFICATE')
      .map((block) => new x509.X509Certificate(block.rawData).toString('pem'));
    if (certificates.length === 0) throw new Error(`${file} holds no PEM certificate`);
    return certificates;
  });
}

/**
 * The bundled BIMI VMC roots (layers/mailscan/assets/vmc-roots/*.pem). Looked up next to the
 * source tree and next to the bundled CLI (dist/lib/mailscan → ../../assets, /opt/lib/mailscan → /opt/assets), so the
 * build only has to copy the folder. No folder, or an empty one, means no bundled roots.
 */
export function loadBundledVmcRoots(): string[] {
  const candidates = ['../../assets/vmc-roots/', '../assets/vmc-roots/'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  for (const folder of candidates) {
    let entries: string[];
    try {
      entries = readdirSync(folder);
    } catch {
      continue;
    }
    return entries.some((name) => name.endsWith('.pem')) ? readPemCertificates(folder) : [];
  }
  return [];
}
