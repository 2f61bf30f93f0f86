/**
 * Debian's Orthanc with its DICOMweb plugin on loopback ports, with its own configuration and
 * temporary storage: open (no authentication, any called AE), or locked (a registered user).
 * `--verbose` logs every DICOM request it receives (Echo, Find, Store, Move, Get).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, start, waitForPort, type Started } from './processes.ts';

export interface Orthanc {
  httpPort: number;
  dicomPort: number;
  process: Started;
  stop: () => Promise<void>;
}

const PLUGIN = '/usr/share/orthanc/plugins/libOrthancDicomWeb.so';

export async function startOrthanc(locked: boolean): Promise<Orthanc> {
  const dir = await mkdtemp(join(tmpdir(), 'medscan-orthanc-'));
  const [httpPort, dicomPort] = [await freePort(), await freePort()];
  const config = {
    Name: 'medscan-test',
    StorageDirectory: join(dir, 'storage'),
    IndexDirectory: join(dir, 'storage'),
    HttpPort: httpPort,
    DicomPort: dicomPort,
    RemoteAccessAllowed: false,
    AuthenticationEnabled: locked,
    RegisteredUsers: locked ? { operator: 'not-a-real-password-9f3c' } : {},
    DicomAet: 'ORTHANCT',
    DicomCheckCalledAet: false,
    Plugins: [PLUGIN],
    DicomWeb: { Enable: true, Root: '/dicom-web/' },
    ConcurrentJobs: 1,
    HttpThreadsCount: 4,
  };
  await writeFile(join(dir, 'orthanc.json'), JSON.stringify(config));
  const process = start('Orthanc', ['--verbose', join(dir, 'orthanc.json')]);
  await waitForPort(httpPort, process.child);
  await waitForPort(dicomPort, process.child);
  return {
    httpPort,
    dicomPort,
    process,
    stop: async () => {
      await process.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Uploads a DICOM file through the REST API (test setup: the scan itself never stores anything). */
export async function uploadToOrthanc(orthanc: Orthanc, file: string, credentials?: string): Promise<number> {
  const body = await readFile(file);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: orthanc.httpPort,
        path: '/instances',
        method: 'POST',
        headers: {
          'content-type': 'application/dicom',
          'content-length': body.length,
          ...(credentials ? { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` } : {}),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
