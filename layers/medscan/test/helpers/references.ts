/** The reference tools of DESIGN §22 on the same servers: nmap's dicom-ping and dcmtk's echoscu and findscu. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** nmap 7.93's dicom-ping verdict on one port (forced with `+`: the port rule wants a dicom service name). */
export async function dicomPing(port: number): Promise<'any_aet' | 'called_aet_checked' | 'none'> {
  const { stdout } = await run('nmap', ['-n', '-Pn', '-sT', '-p', String(port), '--script', '+dicom-ping', '127.0.0.1'], {
    timeout: 60_000,
  });
  if (/Any AET is accepted/.test(stdout)) return 'any_aet';
  if (/Called AET check enabled/.test(stdout)) return 'called_aet_checked';
  return 'none';
}

/** echoscu from a fixed calling AE: true when the C-ECHO succeeds. */
export async function echoscu(port: number, calledAe: string): Promise<boolean> {
  return run('echoscu', ['-aet', 'REFCHECK', '-aec', calledAe, '127.0.0.1', String(port)]).then(
    () => true,
    () => false,
  );
}

/** findscu for a random patient id: true when the query completes (exit 0), whatever it matched. */
export async function findscu(port: number, calledAe: string): Promise<boolean> {
  return run('findscu', [
    '-S',
    '-aet',
    'REFCHECK',
    '-aec',
    calledAe,
    '-k',
    'QueryRetrieveLevel=STUDY',
    '-k',
    `PatientID=NOMATCH${Date.now()}`,
    '127.0.0.1',
    String(port),
  ]).then(
    () => true,
    () => false,
  );
}
