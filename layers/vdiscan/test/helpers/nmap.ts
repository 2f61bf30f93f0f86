/**
 * nmap 7.93 (Debian) as the reference: `rdp-enum-encryption`, `rdp-ntlm-info` and `vnc-info`, forced
 * onto a loopback port (`+script`: their port rules want 3389 / 5900 or service detection).
 */
import { execFile } from 'node:child_process';

export function nmapScript(port: number, scripts: string[], extra: string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'nmap',
      [...extra, '-Pn', '-n', '-p', String(port), '--script', scripts.map((s) => `+${s}`).join(','), '127.0.0.1'],
      { timeout: 60_000 },
      (error, stdout) => (error ? reject(new Error(`nmap failed: ${error.message}`)) : resolve(stdout)),
    );
  });
}

/** rdp-enum-encryption's "Security layer" lines: protocol name → SUCCESS/FAILED. */
export function nmapSecurityLayer(output: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of output.matchAll(/^\|\s+(CredSSP \(NLA\)|CredSSP with Early User Auth|Native RDP|RDSTLS|SSL): (\w+)/gm))
    out[match[1]] = match[2];
  return out;
}

/** rdp-enum-encryption's "RDP Encryption level" and the methods it lists as SUCCESS. */
export function nmapEncryption(output: string): { level?: string; methods: string[] } {
  const level = /RDP Encryption level: (\S.*)$/m.exec(output)?.[1]?.trim();
  const methods = [...output.matchAll(/^\|\s+(40-bit RC4|56-bit RC4|128-bit RC4|FIPS 140-1): SUCCESS/gm)].map((m) => m[1]);
  return { level, methods };
}
