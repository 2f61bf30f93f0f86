/**
 * The test world of m365scan: a test CA, NSD serving the zones of fixtures/zones, the loopback
 * Microsoft fakes, and a runner of the CLI (in process, as the other engines' tests run theirs).
 * Four domains: contoso.test (a managed tenant, clean), fabrikam.test (a federated tenant with
 * ADFS and most problems), dangling.test (no tenant, dangling CNAMEs), plain.test (no Microsoft at all).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runEngineCli } from '../../../engine-kit/src/cli.ts';
import { engineReportSchema, type EngineReport } from '../../../../lib/report.ts';
import { m365scan } from '../../src/engine.ts';
import { startMicrosoftFakes, type MicrosoftFakes, type Site, type Tenant } from './microsoft.ts';
import { startNsd, type RunningNsd } from './nsd.ts';
import { makeTestCa } from './pki.ts';

export const ZONE_DIR = fileURLToPath(new URL('../fixtures/zones', import.meta.url));
const recorded = (name: string): Promise<string> =>
  readFile(fileURLToPath(new URL(`../fixtures/recorded/${name}`, import.meta.url)), 'utf8');

export const CONTOSO_TENANT = '6f2b1c4e-8d3a-4b5f-9e7c-1a2b3c4d5e6f';
export const FABRIKAM_TENANT = '0c9d8e7f-6a5b-4c3d-8e2f-1a0b9c8d7e6f';
export const EXAMPLE_TENANT = '3d4e5f60-7182-4a3b-9c4d-5e6f708192a3';
export const OWA_BUILD = '15.2.1118';

export interface World {
  nsd: RunningNsd;
  fakes: MicrosoftFakes;
  dir: string;
  caFile: string;
  env: Record<string, string>;
  /** The tenants the login server knows, by domain: a test may change one between scans. */
  tenants: Record<string, Tenant>;
  /** The signing certificates' days left as served (fabrikam's expires in 10 days). */
  scan(target: string, scope?: Record<string, unknown>, env?: Record<string, string>, timeoutSeconds?: number): Promise<ScanRun>;
  close(): Promise<void>;
}

export interface ScanRun {
  code: number;
  report?: EngineReport;
  stdout: string;
  stderr: string;
}

/** Starts the world with the host server on `hostAddress`:443 (a loopback address of the calling test file's own). */
export async function startWorld(hostAddress: string): Promise<World> {
  const ca = await makeTestCa();
  const nsd = await startNsd(ZONE_DIR, { HTTPS_ADDRESS: hostAddress });
  const [signing, encryption, idp, owa, fault] = await Promise.all([
    ca.tokenSigning('ADFS Signing - sts.fabrikam.test', 10),
    ca.tokenSigning('ADFS Encryption - sts.fabrikam.test', 300),
    recorded('idpinitiatedsignon.html'),
    recorded('owa-logon.html'),
    recorded('usernamemixed-fault.xml'),
  ]);
  const metadata = (await recorded('federation-metadata.xml'))
    .replaceAll('{{HOST}}', 'sts.fabrikam.test')
    .replaceAll('{{SIGNING_CERT}}', signing)
    .replaceAll('{{ENCRYPTION_CERT}}', encryption);
  const policy = (mx: string[], mode = 'enforce'): [number, Record<string, string>, string] => [
    200,
    { 'content-type': 'text/plain' },
    `version: STSv1\r\nmode: ${mode}\r\n${mx.map((host) => `mx: ${host}\r\n`).join('')}max_age: 604800\r\n`,
  ];
  const sites: Record<string, Site> = {
    'mta-sts.contoso.test': { '/.well-known/mta-sts.txt': policy(['*.mail.protection.outlook.com']) },
    'mta-sts.fabrikam.test': { '/.well-known/mta-sts.txt': policy(['mail.fabrikam.test']) },
    'mta-sts.plain.test': { '/.well-known/mta-sts.txt': policy(['mx.plain.test']) },
    'sts.fabrikam.test': {
      '/adfs/ls/idpinitiatedsignon.aspx': [200, { 'content-type': 'text/html; charset=utf-8' }, idp],
      '/adfs/services/trust/2005/usernamemixed': [400, { 'content-type': 'application/soap+xml; charset=utf-8' }, fault],
      '/FederationMetadata/2007-06/FederationMetadata.xml': [200, { 'content-type': 'application/samlmetadata+xml' }, metadata],
    },
    'mail.fabrikam.test': {
      '/owa/auth/logon.aspx': [
        200,
        { 'content-type': 'text/html; charset=utf-8', 'x-owa-version': `${OWA_BUILD}.7`, 'x-feserver': 'EXCH01' },
        owa.replaceAll('{{BUILD}}', OWA_BUILD).replaceAll('{{HOST}}', 'mail.fabrikam.test'),
      ],
    },
    'mx.plain.test': {},
  };
  const tenants: Record<string, Tenant> = {
    'contoso.test': { tenantId: CONTOSO_TENANT, region: 'EU', brand: 'Contoso', namespace: 'Managed', desktopSso: false },
    // The end-to-end test's domain (the API takes only a domain under a public suffix).
    'example.com': { tenantId: EXAMPLE_TENANT, region: 'EU', brand: 'Example', namespace: 'Managed', desktopSso: true },
    'fabrikam.test': {
      tenantId: FABRIKAM_TENANT,
      region: 'NA',
      brand: 'Fabrikam Inc',
      namespace: 'Federated',
      authOrigin: 'https://sts.fabrikam.test',
      desktopSso: true,
    },
  };
  const fakes = await startMicrosoftFakes({ ca, hostAddress, tenants, sites });
  const dir = await mkdtemp(join(tmpdir(), 'm365scan-world-'));
  const caFile = join(dir, 'ca.pem');
  await writeFile(caFile, ca.rootPem);
  const env = {
    M365SCAN_LOGIN_URL: fakes.loginUrl,
    M365SCAN_NAMESERVERS: nsd.address,
    M365SCAN_ALLOW_LOOPBACK: '1',
    EXTRA_CA_FILE: caFile,
  };
  return {
    nsd,
    fakes,
    dir,
    caFile,
    env,
    tenants,
    scan: (target, scope = {}, extraEnv = {}, timeoutSeconds = 30) => runScan(dir, target, scope, { ...env, ...extraEnv }, timeoutSeconds),
    async close() {
      await Promise.all([fakes.close(), nsd.stop()]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

let runs = 0;
async function runScan(
  dir: string,
  target: string,
  scope: Record<string, unknown>,
  env: Record<string, string>,
  timeoutSeconds: number,
): Promise<ScanRun> {
  const scopeFile = join(dir, `scope-${(runs += 1)}.json`);
  await writeFile(scopeFile, JSON.stringify(scope));
  let stdout = '';
  let stderr = '';
  const code = await runEngineCli(m365scan, ['scan', target, '--scope-json', scopeFile, '--timeout', String(timeoutSeconds)], {
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    env,
    now: () => new Date(),
  });
  const report = code === 0 ? engineReportSchema().parse(JSON.parse(stdout)) : undefined;
  return { code, report, stdout, stderr };
}

/** rule id → check status. */
export function statuses(report: EngineReport): Record<string, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}
