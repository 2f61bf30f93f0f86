import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
    const certificates = pemCertificateBlocks(readFileSync(file, 'utf8'));
    if (certificates.length === 0) throw new Error(`${file} holds no PEM certificate`);
    return certificates;
  });
}

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+?)-----END CERTIFICATE-----/g;

/**
 * The CERTIFICATE blocks of a PEM text whose base64 decodes to a DER SEQUENCE, re-wrapped as PEM.
 * Read as text, not parsed as X.509: the X.509 stack loads only when a VMC is validated (vmc.ts
 * parses the roots then), so a scan does not pay for it at start-up.
 */
function pemCertificateBlocks(text: string): string[] {
  return [...text.matchAll(PEM_CERTIFICATE)].flatMap((match) => {
    const der = Buffer.from(match[1].replace(/\s+/g, ''), 'base64');
    if (der.length < 64 || der[0] !== 0x30) return [];
    const body = der
      .toString('base64')
      .match(/.{1,64}/g)!
      .join('\n');
    return [`-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----`];
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
