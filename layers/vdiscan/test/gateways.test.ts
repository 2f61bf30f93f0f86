/**
 * Desktop gateways (DESIGN §21) through loopback servers speaking recorded pages: detection with
 * product and version, the bulletin table (Apache Guacamole's 2023 advisories, docs/vdiscan-bulletins.md)
 * with severity from CVSS, Horizon's info.jsp disclosure, and a plain site that is none of them.
 * Only GETs to fixed paths are sent: no login form, no exploit path.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  CITRIX_VPN_INDEX,
  HORIZON_PORTAL,
  RD_GATEWAY_401,
  RD_WEB_LOGIN,
  guacamoleTranslations,
  horizonInfo,
  startGateway,
  type GatewayServer,
} from './helpers/gateways.ts';
import { scan } from './helpers/scan.ts';

const started: GatewayServer[] = [];
async function gateway(...args: Parameters<typeof startGateway>): Promise<GatewayServer> {
  const server = await startGateway(...args);
  started.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.stop()));
});

describe('vdiscan desktop gateways', () => {
  it('VMware Horizon over HTTPS: detected with its version, info.jsp disclosure (medium), no Horizon bulletin to compare', async () => {
    const server = await gateway(
      { '/portal/webclient/index.html': { body: HORIZON_PORTAL }, '/portal/info.jsp': { body: horizonInfo('203.0.113.7', '8.6.0') } },
      true,
    );
    const scanned = await scan(`127.0.0.1:${server.port}`);
    expect(scanned.report.status).toBe('ok');
    const [detected] = scanned.findings('vdi.gateway.detected');
    expect(detected).toMatchObject({ severity: 'info', evidence: { product: 'VMware Horizon', version: '8.6.0', scheme: 'https' } });
    const [info] = scanned.findings('vdi.horizon.info_disclosure');
    expect(info).toMatchObject({ severity: 'medium', evidence: { disclosed: { clientIPAddress: '203.0.113.7', clientVersion: '8.6.0' } } });
    expect(scanned.check('vdi.gateway.vulnerable_version')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('no VMware Horizon entries'),
    });
    // Not RDP's port (3389) and not RDP: RDP's rules are skipped for it, not errors.
    expect(scanned.check('vdi.rdp.nla_not_required')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('not an RDP service'),
    });
  });

  it.each([
    { version: '1.5.1', ids: ['CVE-2023-30575', 'CVE-2023-30576'] },
    { version: '0.9.9', ids: ['CVE-2023-30575'] },
    { version: '1.5.2', ids: [] },
  ])('Apache Guacamole $version against the bulletin table: $ids', async ({ version, ids }) => {
    const server = await gateway({ '/guacamole/translations/en.json': { body: guacamoleTranslations(version) } });
    const scanned = await scan('127.0.0.1', { ports: [server.port] });
    expect(scanned.findings('vdi.gateway.detected')[0].evidence).toMatchObject({ product: 'Apache Guacamole', version, scheme: 'http' });
    const vulnerable = scanned.findings('vdi.gateway.vulnerable_version');
    expect(vulnerable.map((f) => f.evidence.id)).toEqual(ids);
    for (const finding of vulnerable) expect(finding.severity).toBe('medium'); // CVSS 6.5 and 6.8
    expect(scanned.check('vdi.gateway.vulnerable_version').status).toBe(ids.length > 0 ? 'fail' : 'pass');
  });

  it('Citrix Gateway, RD Web Access and RD Gateway: detected without a version, so no bulletin can be compared', async () => {
    const server = await gateway({
      '/vpn/index.html': { body: CITRIX_VPN_INDEX },
      '/RDWeb/Pages/en-US/login.aspx': { body: RD_WEB_LOGIN },
      '/remoteDesktopGateway/': RD_GATEWAY_401,
    });
    const scanned = await scan('127.0.0.1', { ports: [server.port] });
    expect(scanned.findings('vdi.gateway.detected').map((f) => f.evidence.product)).toEqual([
      'Citrix Gateway',
      'RD Web Access',
      'RD Gateway',
    ]);
    expect(scanned.check('vdi.gateway.vulnerable_version')).toMatchObject({
      status: 'skipped',
      detail: expect.stringContaining('show no version'),
    });
    expect(scanned.check('vdi.horizon.info_disclosure').status).toBe('skipped');
    // GETs to the fixed paths only: nothing posted, no login, no traversal path.
    expect(server.requests.every((r) => r.method === 'GET')).toBe(true);
    expect(server.requests.map((r) => r.url).sort()).toEqual(
      [
        '/vpn/index.html',
        '/logon/LogonPoint/tmindex.html',
        '/portal/info.jsp',
        '/portal/webclient/index.html',
        '/RDWeb/Pages/en-US/login.aspx',
        '/remoteDesktopGateway/',
        '/guacamole/translations/en.json',
      ].sort(),
    );
  });

  it('a plain web site is no gateway: the detection check passes, the others are skipped', async () => {
    const server = await gateway({ '/': { body: '<html><title>Shop</title></html>' } });
    const scanned = await scan('127.0.0.1', { ports: [server.port] });
    expect(scanned.check('vdi.gateway.detected')).toMatchObject({
      status: 'pass',
      detail: expect.stringContaining('serves no Citrix Gateway'),
    });
    expect(scanned.report.findings).toEqual([]);
  });
});
