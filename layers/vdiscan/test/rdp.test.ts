/**
 * vdiscan's RDP verdicts on real servers (DESIGN §21): Debian xrdp with each security_layer and
 * crypt_level, and freerdp-shadow-cli requiring NLA under Xvfb. References on the same servers:
 * nmap 7.93's rdp-enum-encryption (-d, so a refusal shows its failure code) compared on what each
 * request got back, nmap's rdp-ntlm-info on the NTLM challenge, and xfreerdp `/sec:nla +auth-only`
 * as an independent client for the protocol selected when CredSSP is offered. The servers' own
 * logs show that no session went past the MCS Connect Response or the NTLM CHALLENGE.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startShadowNla, startXrdp, type CryptLevel, type Running, type SecurityLayer } from './helpers/desktops.ts';
import { nmapEncryption, nmapScript, nmapSecurityLayer } from './helpers/nmap.ts';
import { scan, type Scanned } from './helpers/scan.ts';

interface Answer {
  requested: number;
  selected?: number;
  failure?: number;
  encryption?: { method: number; level: number };
}

/** The per-request answers vdiscan reported on stderr. */
function answersOf(scanned: Scanned): Answer[] {
  for (const line of scanned.stderr.split('\n')) {
    if (!line.includes('vdi.rdp.negotiations')) continue;
    return (JSON.parse(line) as { answers: Answer[] }).answers;
  }
  throw new Error(`no negotiation progress line: ${scanned.stderr}`);
}

const NMAP_NAME: Record<number, string> = { 0: 'Native RDP', 1: 'SSL', 3: 'CredSSP (NLA)' };
const FAILURE_NAME: Record<number, string> = {
  1: 'SSL_REQUIRED_BY_SERVER',
  2: 'SSL_NOT_ALLOWED_BY_SERVER',
  5: 'HYBRID_REQUIRED_BY_SERVER',
};
const LEVEL_NAME: Record<number, string> = { 1: 'Low', 2: 'Client Compatible', 3: 'High', 4: 'FIPS Compliant' };
const METHOD_NAME: Record<number, string> = { 1: '40-bit RC4', 2: '128-bit RC4', 8: '56-bit RC4', 16: 'FIPS 140-1' };

function xfreerdpAuthOnly(port: number, display: string): Promise<string> {
  return new Promise((resolve) => {
    execFile(
      'xfreerdp',
      [`/v:127.0.0.1:${port}`, '/sec:nla', '+auth-only', '/u:nobody', '/p:not-a-password', '/cert:ignore', '/log-level:DEBUG'],
      { timeout: 30_000, env: { ...process.env, DISPLAY: display } },
      (_error, stdout, stderr) => resolve(`${stdout}${stderr}`),
    );
  });
}

/** What xfreerdp's negotiation debug says the server selected for RequestedProtocols 3. */
function xfreerdpSelected(output: string): number | undefined {
  expect(output).toContain('RequestedProtocols: 3');
  const match = /selected_protocol: (\d+)/.exec(output);
  return match ? Number(match[1]) : undefined;
}

const XRDP: ReadonlyArray<{
  layer: SecurityLayer;
  crypt: CryptLevel;
  nla: 'fail';
  standard: 'fail' | 'pass';
  weak: 'fail' | 'pass' | 'skipped';
}> = [
  { layer: 'rdp', crypt: 'low', nla: 'fail', standard: 'fail', weak: 'fail' },
  { layer: 'rdp', crypt: 'medium', nla: 'fail', standard: 'fail', weak: 'fail' },
  { layer: 'rdp', crypt: 'high', nla: 'fail', standard: 'fail', weak: 'pass' },
  { layer: 'rdp', crypt: 'fips', nla: 'fail', standard: 'fail', weak: 'pass' },
  { layer: 'negotiate', crypt: 'high', nla: 'fail', standard: 'fail', weak: 'pass' },
  { layer: 'tls', crypt: 'high', nla: 'fail', standard: 'pass', weak: 'skipped' },
];

describe('vdiscan on xrdp (security_layer × crypt_level) and freerdp-shadow (NLA)', () => {
  const servers = new Map<string, Running>();
  let shadow: Awaited<ReturnType<typeof startShadowNla>>;
  const key = (layer: string, crypt: string) => `${layer}/${crypt}`;

  beforeAll(async () => {
    // Each server is registered as it starts, so afterAll stops it even when another fails to start.
    await Promise.all(XRDP.map(async (row) => servers.set(key(row.layer, row.crypt), await startXrdp(row.layer, row.crypt))));
    shadow = await startShadowNla();
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...servers.values()].map((server) => server.stop()));
    await shadow?.stop();
  });

  it.concurrent.each(XRDP)('xrdp security_layer=$layer crypt_level=$crypt: the verdicts read from what the server selects', async (row) => {
    const server = servers.get(key(row.layer, row.crypt))!;
    const scanned = await scan(`127.0.0.1:${server.port}`, { rdp_tls: false });
    expect(scanned.report.status).toBe('ok');
    expect(scanned.check('vdi.rdp.nla_not_required').status).toBe(row.nla);
    expect(scanned.check('vdi.rdp.standard_security').status).toBe(row.standard);
    expect(scanned.check('vdi.rdp.weak_encryption').status).toBe(row.weak);
    // xrdp speaks no CredSSP: no NTLM challenge to read.
    expect(scanned.check('vdi.rdp.ntlm_disclosure')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('CredSSP is not selected'),
    });
    expect(scanned.check('vdi.vnc.no_auth').status).toBe('skipped');
    const answers = answersOf(scanned);
    expect(answers.map((a) => a.requested)).toEqual([0, 1, 3]);

    // The reference: nmap's answer to the same requests (SUCCESS = a negotiation response, FAILED = its code).
    const nmap = await nmapScript(server.port, ['rdp-enum-encryption'], ['-d']);
    if (row.layer === 'tls') {
      // nmap's cipher enumeration sends its MCS Connect Initial after xrdp refused standard RDP and
      // throws on the answer; the refusal itself is what vdiscan reports for the standard-RDP request.
      expect(nmap).toMatch(/rdp-enum-encryption against \S+ threw an error![\s\S]*enum_ciphers/);
      expect(answers[0]).toMatchObject({ requested: 0, failure: 1 });
      return;
    }
    const layer = nmapSecurityLayer(nmap);
    for (const answer of answers) {
      const theirs = layer[NMAP_NAME[answer.requested]];
      if (answer.selected !== undefined) expect(theirs, `request ${answer.requested}`).toBe('SUCCESS');
      else expect(theirs, `request ${answer.requested}`).toBe(`FAILED (${FAILURE_NAME[answer.failure!]})`);
    }
    // nmap 7.93 prints "CredSSP (NLA): SUCCESS" for every xrdp here, yet xrdp never selects CredSSP
    // (vdiscan's third request and xfreerdp's agree): the selected protocol is the reference.
    expect(layer['CredSSP (NLA)']).toBe('SUCCESS');
    expect(answers[2].selected! & 2).toBe(0);
    const encryption = answers.find((a) => a.encryption)?.encryption;
    expect(encryption).toBeDefined();
    const theirs = nmapEncryption(nmap);
    expect(theirs.level).toBe(LEVEL_NAME[encryption!.level]);
    expect(theirs.methods).toContain(METHOD_NAME[encryption!.method]);
  });

  it('xrdp security_layer=negotiate: nmap says "CredSSP (NLA): SUCCESS", xfreerdp /sec:nla and vdiscan see TLS selected, so NLA is not required', async () => {
    const server = servers.get(key('negotiate', 'high'))!;
    const scanned = await scan(`127.0.0.1:${server.port}`, { rdp_tls: false });
    const nmap = nmapSecurityLayer(await nmapScript(server.port, ['rdp-enum-encryption']));
    expect(nmap['CredSSP (NLA)']).toBe('SUCCESS');
    const xfreerdp = await xfreerdpAuthOnly(server.port, shadow.display);
    expect(xfreerdpSelected(xfreerdp)).toBe(1);
    expect(xfreerdp).toContain('ERRCONNECT_SECURITY_NEGO_CONNECT_FAILED');
    expect(answersOf(scanned)[2]).toMatchObject({ requested: 3, selected: 1 });
    expect(scanned.findings('vdi.rdp.nla_not_required')).toHaveLength(1);
  });

  it('freerdp-shadow /sec:nla: NLA required (HYBRID_REQUIRED_BY_SERVER), the NTLM challenge read and equal to nmap rdp-ntlm-info, TLS checked through the rdp preamble', async () => {
    const scanned = await scan(`127.0.0.1:${shadow.port}`);
    expect(scanned.report.status).toBe('ok');
    expect(scanned.check('vdi.rdp.nla_not_required')).toMatchObject({ status: 'pass', detail: expect.stringContaining('NLA is required') });
    expect(scanned.check('vdi.rdp.standard_security').status).toBe('pass');
    expect(scanned.check('vdi.rdp.weak_encryption').status).toBe('skipped');
    const answers = answersOf(scanned);
    expect(answers).toMatchObject([
      { requested: 0, failure: 5 },
      { requested: 1, failure: 5 },
      { requested: 3, selected: 2 },
    ]);
    // The independent client selects the same protocol for the same request.
    expect(xfreerdpSelected(await xfreerdpAuthOnly(shadow.port, shadow.display))).toBe(2);

    const [ntlm] = scanned.findings('vdi.rdp.ntlm_disclosure');
    expect(ntlm.severity).toBe('low');
    const nmap = await nmapScript(shadow.port, ['rdp-ntlm-info']);
    const field = (name: string) => new RegExp(`${name}: (\\S+)`).exec(nmap)?.[1];
    expect(ntlm.evidence).toMatchObject({
      netbios_computer: field('NetBIOS_Computer_Name'),
      netbios_domain: field('NetBIOS_Domain_Name'),
      dns_computer: field('DNS_Computer_Name'),
      dns_domain: field('DNS_Domain_Name'),
      os_version: field('Product_Version'),
    });
    // TLS on RDP went through tlsscan's rdp preamble: a self-signed certificate, findings under vdi.rdp.tls.*.
    expect(scanned.check('vdi.rdp.tls.starttls.unavailable')).toMatchObject({
      status: 'pass',
      detail: expect.stringContaining('RDP TLS negotiation'),
    });
    expect(scanned.check('vdi.rdp.tls.cert.untrusted').status).toBe('fail');
    expect(scanned.check('vdi.rdp.tls.protocol.no_modern').status).toBe('pass');
  }, 120_000);

  it('stops at the MCS Connect Response and the NTLM CHALLENGE: the servers log no login', async () => {
    const xrdp = servers.get(key('rdp', 'low'))!;
    await scan(`127.0.0.1:${xrdp.port}`, { rdp_tls: false });
    const xrdpLog = await xrdp.log();
    // xrdp waited for the Erect Domain Request that never came; no login screen, no sesman, no session.
    expect(xrdpLog).toContain('receive erect domain request failed');
    expect(xrdpLog).not.toMatch(/login|sesman|xrdp_mm|session started/i);

    const before = (await shadow.log()).length;
    await scan(`127.0.0.1:${shadow.port}`, { rdp_tls: false });
    // The server logs the NLA connection's end once it sees the close.
    await shadow.until((log) => log.slice(before).includes('client authentication failure'));
    const shadowLog = (await shadow.log()).slice(before);
    // The NEGOTIATE was accepted (one AcceptSecurityContext, CONTINUE_NEEDED); no AUTHENTICATE
    // followed, so no second AcceptSecurityContext and no client ever accepted.
    expect(shadowLog.match(/AcceptSecurityContext status SEC_I_CONTINUE_NEEDED/g)).toHaveLength(1);
    expect(shadowLog).not.toMatch(/Accepted client|SEC_E_LOGON_DENIED|logon/i);
  }, 120_000);

  it('spaces connection starts to one RDP port 200 ms apart', async () => {
    const server = servers.get(key('rdp', 'high'))!;
    const scanned = await scan(`127.0.0.1:${server.port}`, { rdp_tls: false });
    // Three connections: the second and third start 200 ms after the one before.
    expect(scanned.ms).toBeGreaterThanOrEqual(400);
  });
});
