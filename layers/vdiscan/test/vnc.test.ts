/**
 * vdiscan's VNC verdicts on TigerVNC's Xvnc (Debian) with the security types of DESIGN §21 (None,
 * VncAuth, TLSVnc, X509 types), against nmap 7.93's vnc-info on the same servers: the security
 * types and VeNCrypt subtypes listed are equal, and nmap's "does not require authentication"
 * warning appears exactly where vdi.vnc.no_auth fires. Xvnc's log shows that no security type was
 * ever chosen past VeNCrypt's subtype list: no authentication was attempted.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startXvnc, type Running } from './helpers/desktops.ts';
import { nmapScript } from './helpers/nmap.ts';
import { scan } from './helpers/scan.ts';

const CASES = [
  { types: 'None', noAuth: 'fail', weakOnly: 'pass', cleartext: 'fail' },
  { types: 'VncAuth', noAuth: 'pass', weakOnly: 'fail', cleartext: 'fail' },
  { types: 'TLSVnc', noAuth: 'pass', weakOnly: 'pass', cleartext: 'pass' },
  { types: 'X509Vnc,VncAuth', noAuth: 'pass', weakOnly: 'pass', cleartext: 'pass' },
  { types: 'X509None', noAuth: 'fail', weakOnly: 'pass', cleartext: 'pass' },
  { types: 'TLSNone,None', noAuth: 'fail', weakOnly: 'pass', cleartext: 'pass' },
] as const;

/** vnc-info's numbers: the security types and the VeNCrypt subtypes, each list sorted. */
function nmapNumbers(output: string): { types: number[]; subtypes: number[]; warning: boolean } {
  const section = output.split('VeNCrypt auth subtypes:');
  const numbers = (text: string) => [...text.matchAll(/^\|_?\s+.*\((\d+)\)\s*$/gm)].map((m) => Number(m[1])).sort((a, b) => a - b);
  return {
    types: numbers(section[0]),
    subtypes: section[1] ? numbers(section[1]) : [],
    warning: output.includes('Server does not require authentication'),
  };
}

describe('vdiscan on Xvnc security types, with nmap vnc-info as the reference', () => {
  const servers = new Map<string, Running>();
  beforeAll(async () => {
    // Registered as each starts, so afterAll stops it even when another fails to start.
    await Promise.all(CASES.map(async (c) => servers.set(c.types, await startXvnc(c.types))));
  }, 120_000);
  afterAll(async () => {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  });

  it.concurrent.each(CASES)('SecurityTypes=$types', async (row) => {
    const server = servers.get(row.types)!;
    const scanned = await scan(`127.0.0.1:${server.port}`);
    expect(scanned.report.status).toBe('ok');
    expect(scanned.check('vdi.vnc.no_auth').status).toBe(row.noAuth);
    expect(scanned.check('vdi.vnc.weak_auth_only').status).toBe(row.weakOnly);
    expect(scanned.check('vdi.vnc.cleartext').status).toBe(row.cleartext);
    expect(scanned.check('vdi.rdp.nla_not_required').status).toBe('skipped');
    for (const finding of scanned.report.findings) {
      expect(finding.severity).toBe(
        { 'vdi.vnc.no_auth': 'critical', 'vdi.vnc.weak_auth_only': 'high', 'vdi.vnc.cleartext': 'medium' }[finding.rule_id],
      );
    }

    const nmap = nmapNumbers(await nmapScript(server.port, ['vnc-info']));
    // What vdiscan read (its progress line), against nmap's lists.
    const line = scanned.stderr.split('\n').find((text) => text.includes('vdi.vnc.types'))!;
    const read = JSON.parse(line) as { types: number[]; vencrypt_subtypes: number[] | null };
    expect([...read.types].sort((a, b) => a - b)).toEqual(nmap.types);
    expect([...(read.vencrypt_subtypes ?? [])].sort((a, b) => a - b)).toEqual(nmap.subtypes);
    if (row.types === 'X509None') {
      // nmap 7.93's vnc-info tests TLSNONE twice where it meant TLSNONE or X509NONE, so it never
      // warns about X509None; it names the subtype "None, Server-authenticated TLS (260)" itself.
      const script = readFileSync('/usr/share/nmap/scripts/vnc-info.nse', 'utf8');
      expect(script).toMatch(/== vnc\.VENCRYPT_SUBTYPES\.TLSNONE or\s+v\.vencrypt\.types\[i\] == vnc\.VENCRYPT_SUBTYPES\.TLSNONE then/);
      expect(nmap.subtypes).toEqual([260]);
      expect(nmap.warning).toBe(false);
    } else {
      expect(nmap.warning).toBe(row.noAuth === 'fail');
    }
  });

  it('never authenticates: Xvnc logs no security type chosen beyond VeNCrypt, no authentication; one connection a scan', async () => {
    const server = servers.get('VncAuth')!;
    const accepted = async () => (await server.log()).match(/Connections: accepted/g)?.length ?? 0;
    const before = await accepted();
    await scan(`127.0.0.1:${server.port}`);
    // The greeting is heard on the first connection and the exchange goes on there (TigerVNC
    // blacklists a client after five connections that end before authentication).
    expect((await accepted()) - before).toBe(1);
    const tls = servers.get('TLSVnc')!;
    await scan(`127.0.0.1:${tls.port}`);
    for (const log of [await server.log(), await tls.log()]) {
      expect(log).toMatch(/Connections: accepted: 127\.0\.0\.1/);
      expect(log).not.toMatch(/authentication (failure|success)|AuthFailure|Authentication failed|SecurityType.*chosen|pixel format/i);
    }
  });
});
