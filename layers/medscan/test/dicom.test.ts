/**
 * medscan's DICOM checks on real dcmtk servers (DESIGN §22): storescp accepting any AE, and
 * dcmqrscp with an AE table (OPENQR open to any peer, CLOSEDQR to one known peer) and a database
 * holding one test study. References on the same servers: dcmtk's echoscu and findscu, and nmap's
 * dicom-ping; verdicts must agree. The servers' verbose logs show what they received: never a
 * C-STORE, C-MOVE or C-GET from the scan, and the fixture patient appears in no scan output.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, start, waitForPort, type Started } from './helpers/processes.ts';
import { dicomPing, echoscu, findscu } from './helpers/references.ts';
import { outputs, runMedscan, statuses } from './helpers/run.ts';

const run = promisify(execFile);
const FIXTURE = new URL('./fixtures/patient-alice.dump', import.meta.url).pathname;
export const FIXTURE_PATIENT = ['Fixturova', 'Alenka', 'FIXPID-93417', 'ACC4711', '19700101'];

let dir: string;
let storePort: number;
let qrPort: number;
let storescp: Started;
let dcmqrscp: Started;
let tlsPort: number;
let storescpTls: Started;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'medscan-dicom-'));
  await mkdir(join(dir, 'store'));
  await mkdir(join(dir, 'db1'));
  await mkdir(join(dir, 'db2'));
  [storePort, qrPort, tlsPort] = [await freePort(), await freePort(), await freePort()];
  await writeFile(
    join(dir, 'qr.cfg'),
    [
      'NetworkTCPPort = 0',
      'MaxPDUSize = 16384',
      'MaxAssociations = 16',
      'HostTable BEGIN',
      'loader = (LOADER, 127.0.0.1, 0)',
      'known = loader',
      'HostTable END',
      'VendorTable BEGIN',
      'VendorTable END',
      'AETable BEGIN',
      `OPENQR ${join(dir, 'db1')} RW (10, 64mb) ANY`,
      `CLOSEDQR ${join(dir, 'db2')} RW (10, 64mb) known`,
      'AETable END',
      '',
    ].join('\n'),
  );
  await run('dump2dcm', ['+te', FIXTURE, join(dir, 'study.dcm')]);
  storescp = start('storescp', ['-v', '-od', join(dir, 'store'), String(storePort)]);
  dcmqrscp = start('dcmqrscp', ['-v', '-c', join(dir, 'qr.cfg'), String(qrPort)]);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    join(dir, 'key.pem'),
    '-out',
    join(dir, 'cert.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=localhost',
  ]);
  storescpTls = start('storescp', ['+tls', join(dir, 'key.pem'), join(dir, 'cert.pem'), '-od', join(dir, 'store'), String(tlsPort)]);
  await Promise.all([waitForPort(storePort, storescp.child), waitForPort(qrPort, dcmqrscp.child), waitForPort(tlsPort, storescpTls.child)]);
  // The test study goes in at setup, by the known peer: the scan itself never stores anything.
  await run('storescu', ['-aet', 'LOADER', '-aec', 'OPENQR', '127.0.0.1', String(qrPort), join(dir, 'study.dcm')]);
}, 30_000);

afterAll(async () => {
  await Promise.all([storescp?.stop(), dcmqrscp?.stop(), storescpTls?.stop()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('medscan on storescp (accepts any AE)', () => {
  it('fails any_called_ae, any_calling_ae, store_open and cleartext, and passes query_open (no FIND context)', async () => {
    const { report } = await runMedscan(`127.0.0.1:${storePort}`);
    expect(report.status).toBe('ok');
    expect(statuses(report)).toMatchObject({
      'med.dicom.any_called_ae': 'fail',
      'med.dicom.any_calling_ae': 'fail',
      'med.dicom.store_open': 'fail',
      'med.dicom.cleartext': 'fail',
      'med.dicom.query_open': 'pass',
      'med.hl7.mllp_exposed': 'pass',
      'med.fhir.unauthenticated_read': 'pass',
    });
    const called = report.findings.find((finding) => finding.rule_id === 'med.dicom.any_called_ae')!;
    expect(called.evidence).toMatchObject({ echo_status: '0x0000', release: 'released' });
    expect(called.locations).toEqual([`tcp:127.0.0.1:${storePort}`]);
  });

  it('agrees with echoscu to a made-up called AE and with nmap dicom-ping', async () => {
    const { report } = await runMedscan(`127.0.0.1:${storePort}`);
    expect(await echoscu(storePort, 'NOSUCHAE')).toBe(statuses(report)['med.dicom.any_called_ae'] === 'fail');
    expect(await dicomPing(storePort)).toBe('any_aet');
  }, 60_000);
});

describe('DICOM-TLS beside plain DICOM', () => {
  it('passes cleartext when a scanned DICOM port completes a TLS handshake (storescp +tls), and fails it without that port', async () => {
    const both = await runMedscan('127.0.0.1', { dicom_ports: [storePort, tlsPort] });
    expect(statuses(both.report)).toMatchObject({ 'med.dicom.cleartext': 'pass', 'med.dicom.any_called_ae': 'fail' });
    expect(both.report.checks.find((check) => check.id === 'med.dicom.cleartext')!.detail).toBe(
      `plain DICOM on ${storePort}, TLS offered on ${tlsPort}`,
    );
    const plain = await runMedscan('127.0.0.1', { dicom_ports: [storePort] });
    expect(statuses(plain.report)['med.dicom.cleartext']).toBe('fail');
  });
});

describe('medscan on dcmqrscp (an AE table and a study in its database)', () => {
  it('passes any_called_ae and skips what needs a called AE when the scope names none (titles are never guessed)', async () => {
    const { report } = await runMedscan('127.0.0.1', { dicom_ports: [qrPort] });
    expect(statuses(report)).toMatchObject({
      'med.dicom.any_called_ae': 'pass',
      'med.dicom.any_calling_ae': 'skipped',
      'med.dicom.query_open': 'skipped',
      'med.dicom.store_open': 'skipped',
      'med.dicom.cleartext': 'fail',
    });
    expect(await dicomPing(qrPort)).toBe('called_aet_checked');
  }, 60_000);

  it('proves query access on OPENQR with a random patient id (nothing returned) and agrees with findscu and echoscu', async () => {
    const { report } = await runMedscan('127.0.0.1', { dicom_ports: [qrPort], called_ae: ['OPENQR'] });
    expect(statuses(report)).toMatchObject({
      'med.dicom.any_calling_ae': 'fail',
      'med.dicom.query_open': 'fail',
      'med.dicom.store_open': 'fail',
    });
    const query = report.findings.find((finding) => finding.rule_id === 'med.dicom.query_open')!;
    expect(query.evidence).toMatchObject({ final_status: '0x0000', matches: 0, information_model: 'study_root' });
    expect(await findscu(qrPort, 'OPENQR')).toBe(true);
    expect(await echoscu(qrPort, 'OPENQR')).toBe(true);
  });

  it('passes the calling-AE, query and storage checks on CLOSEDQR, which knows its peers, as findscu finds too', async () => {
    const { report } = await runMedscan('127.0.0.1', { dicom_ports: [qrPort], called_ae: ['CLOSEDQR'] });
    expect(statuses(report)).toMatchObject({
      'med.dicom.any_calling_ae': 'pass',
      'med.dicom.query_open': 'pass',
      'med.dicom.store_open': 'pass',
    });
    expect(await findscu(qrPort, 'CLOSEDQR')).toBe(false);
  });
});

describe('what the scan never does, from the servers’ side', () => {
  it('sent no C-STORE, C-MOVE or C-GET, and the fixture patient is in no scan output', async () => {
    await runMedscan('127.0.0.1', { dicom_ports: [storePort, qrPort], called_ae: ['OPENQR'] });
    const received = `${storescp.log()}\n${dcmqrscp.log()}`;
    expect(received).toMatch(/Message Type\s+: C-FIND RQ/); // the verbose logs list every DIMSE command received
    // Only the setup's storescu (calling AE LOADER) ever stored; the scan's random calling AEs never did.
    const stores = [...received.matchAll(/Message Type\s+: C-STORE RQ/g)].length;
    expect(stores).toBe(1);
    expect(received).not.toMatch(/Message Type\s+: C-(MOVE|GET) RQ/);
    expect(await readFile(join(dir, 'db1', 'index.dat')).then((index) => index.length > 0)).toBe(true);
    const all = outputs.join('\n');
    expect(all.length).toBeGreaterThan(0);
    for (const value of FIXTURE_PATIENT) expect(all).not.toContain(value);
  });
});
