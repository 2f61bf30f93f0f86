/**
 * medscan's HTTP checks on real servers (DESIGN §22): Debian's Orthanc with its DICOMweb plugin
 * (open, and with authentication), and a FHIR server from npm (node-fhir-server-core) open, with
 * SMART declared and enforced, and with a weak SMART configuration. The FHIR server logs every
 * request: the scan only ever sends GETs. No output carries a fixture patient.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FHIR_PATIENT_STRINGS, startFhirServer, type FhirServer } from './helpers/fhir-server.ts';
import { startOrthanc, uploadToOrthanc, type Orthanc } from './helpers/orthanc.ts';
import { dicomPing, echoscu } from './helpers/references.ts';
import { outputs, runMedscan, statuses } from './helpers/run.ts';

const run = promisify(execFile);
const FIXTURE = new URL('./fixtures/patient-alice.dump', import.meta.url).pathname;
const DICOM_PATIENT = ['Fixturova', 'Alenka', 'FIXPID-93417', 'ACC4711', '19700101'];

let dir: string;
let open: Orthanc;
let locked: Orthanc;
let fhirOpen: FhirServer;
let fhirSmart: FhirServer;
let fhirWeak: FhirServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'medscan-http-'));
  await run('dump2dcm', ['+te', FIXTURE, join(dir, 'study.dcm')]);
  [open, locked, fhirOpen, fhirSmart, fhirWeak] = await Promise.all([
    startOrthanc(false),
    startOrthanc(true),
    startFhirServer(),
    startFhirServer({ smart: { codeChallengeMethods: ['S256'], grantTypes: ['authorization_code', 'client_credentials'] } }),
    startFhirServer({ smart: { codeChallengeMethods: ['plain'], grantTypes: ['authorization_code', 'implicit', 'password'] } }),
  ]);
  expect(await uploadToOrthanc(open, join(dir, 'study.dcm'))).toBe(200);
  expect(await uploadToOrthanc(locked, join(dir, 'study.dcm'), 'operator:not-a-real-password-9f3c')).toBe(200);
}, 30_000);

afterAll(async () => {
  await Promise.all([open?.stop(), locked?.stop(), fhirOpen?.close(), fhirSmart?.close(), fhirWeak?.close()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('medscan on Orthanc', () => {
  it('fails rest_unauthenticated and qido_unauthenticated on an open Orthanc, with its version as evidence', async () => {
    const { report } = await runMedscan(`http://127.0.0.1:${open.httpPort}/`, { dicomweb_bases: ['/dicom-web'], fhir_bases: ['/fhir'] });
    expect(report.status).toBe('ok');
    expect(statuses(report)).toMatchObject({
      'med.orthanc.rest_unauthenticated': 'fail',
      'med.dicomweb.qido_unauthenticated': 'fail',
      'med.fhir.detected': 'pass',
    });
    const orthanc = report.findings.find((finding) => finding.rule_id === 'med.orthanc.rest_unauthenticated')!;
    expect(orthanc.evidence).toMatchObject({ version: expect.stringMatching(/^\d+\.\d+/) });
  });

  it('passes both on an Orthanc that requires authentication (401)', async () => {
    const { report } = await runMedscan(`http://127.0.0.1:${locked.httpPort}/`, { dicomweb_bases: ['/dicom-web'] });
    expect(statuses(report)).toMatchObject({ 'med.orthanc.rest_unauthenticated': 'pass', 'med.dicomweb.qido_unauthenticated': 'pass' });
    expect(report.checks.find((check) => check.id === 'med.orthanc.rest_unauthenticated')!.detail).toMatch(/401/);
  });

  it('reads Orthanc’s DICOM port as open to any AE, where it refuses the unknown peer’s C-FIND, as findscu, echoscu and nmap see', async () => {
    const { report } = await runMedscan(`127.0.0.1:${open.dicomPort}`);
    expect(statuses(report)).toMatchObject({
      'med.dicom.any_called_ae': 'fail',
      'med.dicom.any_calling_ae': 'fail',
      'med.dicom.query_open': 'pass',
      'med.dicom.store_open': 'fail',
    });
    const { stdout, stderr } = await run('findscu', [
      '-S',
      '-aet',
      'REFCHECK',
      '-aec',
      'ANYAE',
      '-k',
      'QueryRetrieveLevel=STUDY',
      '-k',
      'PatientID=NOMATCH1',
      '127.0.0.1',
      String(open.dicomPort),
    ]);
    expect(`${stdout}${stderr}`).toMatch(/Peer aborted Association/);
    expect(open.process.log()).toMatch(/Rejected Find request/);
    expect(await echoscu(open.dicomPort, 'ANYAE')).toBe(true);
    expect(await dicomPing(open.dicomPort)).toBe('any_aet');
    expect(open.process.log()).not.toMatch(/Incoming (Store|Move|Get) request from AET MS/);
  });
});

describe('medscan on FHIR (node-fhir-server-core)', () => {
  it('fails detected, no_security_declared and unauthenticated_read on an open server, keeping only counts', async () => {
    const { report } = await runMedscan(fhirOpen.base);
    expect(statuses(report)).toMatchObject({
      'med.fhir.detected': 'fail',
      'med.fhir.no_security_declared': 'fail',
      'med.fhir.unauthenticated_read': 'fail',
      'med.fhir.smart_weak': 'pass',
    });
    const read = report.findings.find((finding) => finding.rule_id === 'med.fhir.unauthenticated_read')!;
    expect(read.evidence).toMatchObject({ totals: { Patient: 2, Observation: 1, Encounter: 0 } });
    expect(report.findings.find((finding) => finding.rule_id === 'med.fhir.detected')!.evidence).toMatchObject({ fhir_version: '4.0.1' });
  });

  it('passes on a server that declares SMART with S256 and answers 401 to unauthenticated reads', async () => {
    const { report } = await runMedscan(fhirSmart.base);
    expect(statuses(report)).toMatchObject({
      'med.fhir.detected': 'fail',
      'med.fhir.no_security_declared': 'pass',
      'med.fhir.unauthenticated_read': 'pass',
      'med.fhir.smart_weak': 'pass',
    });
  });

  it('fails smart_weak on plain PKCE and the implicit and password grants', async () => {
    const { report } = await runMedscan(fhirWeak.base);
    const weak = report.findings.find((finding) => finding.rule_id === 'med.fhir.smart_weak')!;
    expect(weak.evidence).toMatchObject({
      weaknesses: ['no S256 PKCE', 'PKCE plain offered', 'implicit grant offered', 'password grant offered'],
    });
  });

  it('probes the default bases on a bare origin and finds nothing where no FHIR server is', async () => {
    const origin = new URL(fhirOpen.base).origin;
    const { report } = await runMedscan(`${origin}/`, { fhir_bases: ['/fhir', '/4_0_1'] });
    expect(statuses(report)['med.fhir.unauthenticated_read']).toBe('fail');
  });
});

describe('what the scan never does, from the servers’ side', () => {
  it('sent only GETs to the FHIR servers, and no output carries a fixture patient', () => {
    const requests = [...fhirOpen.requests, ...fhirSmart.requests, ...fhirWeak.requests];
    expect(requests.length).toBeGreaterThan(10);
    expect(requests.filter((line) => !line.startsWith('GET '))).toEqual([]);
    const all = outputs.join('\n');
    for (const value of [...FHIR_PATIENT_STRINGS, ...DICOM_PATIENT]) expect(all).not.toContain(value);
  });
});
