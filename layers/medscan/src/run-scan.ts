/**
 * The medical scan (DESIGN §22): resolve the target once and vet it, then DICOM on each DICOM port
 * (one association at a time), HL7 MLLP on each HL7 port, and FHIR, DICOMweb and Orthanc over HTTP.
 * A host:port target probes that one port for all three; a URL target probes HTTP only.
 */
import { portRanges } from '../../../lib/report.ts';
import { resolveTarget, type TargetPolicy } from '../../../lib/target-policy.ts';
import type { ScanContext } from '../../engine-kit/src/cli.ts';
import { DICOM_RULE_IDS, HL7_RULE_IDS, HTTP_RULE_IDS } from './catalogue.ts';
import { probeDicomPort, type DicomPortResult } from './checks/dicom.ts';
import { recordDicom } from './checks/dicom-verdicts.ts';
import { probeMllp, recordHl7, type MllpAnswer } from './checks/hl7.ts';
import { probeOrigin, type HttpPlan } from './checks/http.ts';
import { HttpFailed, makeHttpGet, type HttpGet } from './http-client.ts';
import type { MedscanScope } from './scope.ts';
import { parseMedTarget, type MedTarget } from './target.ts';

export interface MedscanDependencies {
  /** The HTTP client; tests may pass one bound to a test CA. Default: makeHttpGet(policy). */
  httpGet?: (policy: TargetPolicy) => HttpGet;
}

function httpPlans(target: MedTarget, scope: MedscanScope): HttpPlan[] {
  const bracket = target.host.includes(':') ? `[${target.host}]` : target.host;
  const bases = { fhirBases: scope.fhir_bases, dicomwebBases: scope.dicomweb_bases };
  if (target.kind === 'url') {
    const path = target.url.pathname.replace(/\/+$/, '');
    return [{ origin: target.url.origin, ...(path === '' ? bases : { fhirBases: [path], dicomwebBases: [path] }) }];
  }
  if (target.kind === 'host_port') return [{ origin: `http://${bracket}:${target.port}`, ...bases }];
  return [
    { origin: `https://${bracket}`, ...bases },
    { origin: `http://${bracket}`, ...bases },
  ];
}

export function makeMedscanScan(dependencies: MedscanDependencies = {}) {
  return async function scan(context: ScanContext<MedscanScope>): Promise<void> {
    const { scope, report, deadline, policy, progress } = context;
    const target = parseMedTarget(context.target);
    const [address] = await resolveTarget(target.host, policy);
    const timeoutMs = scope.connect_timeout_ms;
    const signal = deadline.signal;
    const dicomPorts = target.kind === 'url' ? [] : target.kind === 'host_port' ? [target.port] : scope.dicom_ports;
    const hl7Ports = target.kind === 'url' ? [] : target.kind === 'host_port' ? [target.port] : scope.hl7_ports;

    const coverage = {
      kind: 'network' as const,
      scanned: [{ protocol: 'tcp' as const, hosts: [target.host], ports: portRanges([...dicomPorts, ...hl7Ports]) }],
    };
    report.covered(coverage);
    const passAll = (ruleIds: readonly string[], detail: string): void =>
      ruleIds.forEach((ruleId) => report.pass(ruleId, detail, coverage));

    if (target.kind === 'url') report.skip([...DICOM_RULE_IDS, ...HL7_RULE_IDS], 'a URL target is probed over HTTP only');
    else if (target.kind === 'host') {
      if (dicomPorts.length === 0) report.skip(DICOM_RULE_IDS, 'no dicom_ports in the scope');
      const results: DicomPortResult[] = [];
      for (const port of dicomPorts) {
        progress('dicom port', { port });
        results.push(await probeDicomPort(port, scope.called_ae, { address, timeoutMs, signal }));
      }
      if (dicomPorts.length > 0) recordDicom(report, target.host, results, scope.called_ae.length > 0);
      const answers: { port: number; answer: MllpAnswer }[] = [];
      for (const port of hl7Ports) answers.push({ port, answer: await probeMllp(address, port, timeoutMs, signal) });
      recordHl7(report, target.host, answers);
    } else {
      // One port, three protocols: DICOM first (an HTTP or TLS server answers its request at once),
      // then MLLP; a port that speaks one of them passes the others' checks.
      const { port } = target;
      progress('dicom port', { port });
      const dicom = await probeDicomPort(port, scope.called_ae, { address, timeoutMs, signal });
      if (dicom.random.kind === 'accepted' || dicom.random.kind === 'rejected') {
        recordDicom(report, target.host, [dicom], scope.called_ae.length > 0);
        passAll([...HL7_RULE_IDS, ...HTTP_RULE_IDS], `port ${port} speaks DICOM`);
        return;
      }
      const mllp = await probeMllp(address, port, timeoutMs, signal);
      recordHl7(report, target.host, [{ port, answer: mllp }]);
      if (mllp.kind === 'ack') {
        passAll([...DICOM_RULE_IDS, ...HTTP_RULE_IDS], `port ${port} speaks HL7 MLLP`);
        return;
      }
      recordDicom(report, target.host, [dicom], scope.called_ae.length > 0);
    }

    const get = (dependencies.httpGet ?? ((scanPolicy: TargetPolicy) => makeHttpGet(scanPolicy, 'medscan')))(policy);
    const plans = httpPlans(target, scope);
    if (target.kind === 'host_port') plans[0] = { ...plans[0], origin: await originScheme(get, plans[0].origin, timeoutMs, signal) };
    for (const plan of plans) {
      progress('http origin', { origin: plan.origin });
      await probeOrigin({ get, report, timeoutMs, signal }, plan);
    }
  };
}

/** http://host:port, or https://host:port when the port does not speak plain HTTP (a TLS port resets or hangs up). */
async function originScheme(get: HttpGet, origin: string, timeoutMs: number, signal: AbortSignal): Promise<string> {
  try {
    await get(`${origin}/`, { accept: '*/*', maxBytes: 1024, timeoutMs, signal });
    return origin;
  } catch (error) {
    if (error instanceof HttpFailed && error.code === 'network') return origin.replace(/^http:/, 'https:');
    return origin;
  }
}
