/**
 * From what the DICOM ports answered (dicom.ts) to the five DICOM checks of DESIGN §22. Evidence is
 * status codes, counts and SOP class UIDs only: no AE title of the scope, no identifier.
 */
import { portRanges, type Coverage, type ReportBuilder } from '../../../../lib/report.ts';
import { DICOM_RULE_IDS, MED_RULES } from '../catalogue.ts';
import { FIND_ABORTED, type AcceptedProbe, type AssociationProbe, type DicomPortResult } from './dicom.ts';

const hex = (status: number): string => `0x${status.toString(16).padStart(4, '0')}`;

const REJECT_REASONS: Record<number, string> = {
  1: 'no reason given',
  2: 'application context name not supported',
  3: 'calling AE title not recognised',
  7: 'called AE title not recognised',
};

export function rejection(probe: Extract<AssociationProbe, { kind: 'rejected' }>): string {
  const reason =
    probe.source === 1 ? (REJECT_REASONS[probe.reason] ?? `reason ${probe.reason}`) : `source ${probe.source}, reason ${probe.reason}`;
  return `rejected (${probe.result === 1 ? 'permanent' : 'transient'}: ${reason})`;
}

export function recordDicom(report: ReportBuilder, host: string, results: readonly DicomPortResult[], hasCalledAes: boolean): void {
  const bracket = host.includes(':') ? `[${host}]` : host;
  const coverage: Coverage = {
    kind: 'network',
    scanned: [{ protocol: 'tcp', hosts: [host], ports: portRanges(results.map((result) => result.port)) }],
  };
  const place = (port: number) => ({ fingerprint_key: `${bracket}:${port}`, locations: [`tcp:${bracket}:${port}`] });
  const pass = (ruleId: string, detail: string) => report.pass(ruleId, detail, coverage);
  const plain: number[] = [];
  const tls: number[] = [];

  const accepted = (port: number, probe: AcceptedProbe, calledWhat: string): void => {
    report.fail(MED_RULES.anyCallingAe, {
      ...place(port),
      detail: `Port ${port} accepted an association from a random calling AE title (${calledWhat}).`,
      evidence: {
        port,
        called_ae: probe.calledAe,
        echo_status: probe.echoStatus === undefined ? null : hex(probe.echoStatus),
        release: probe.ending,
      },
    });
    if (probe.find === undefined) pass(MED_RULES.queryOpen, `port ${port}: no query/retrieve FIND context accepted`);
    else if (probe.find.status === 0)
      report.fail(MED_RULES.queryOpen, {
        ...place(port),
        detail: `Port ${port} answered a C-FIND for a random, non-existent patient id with success (${probe.find.matches} matches): anyone can query it.`,
        evidence: {
          port,
          called_ae: probe.calledAe,
          information_model: probe.find.model,
          final_status: hex(probe.find.status),
          matches: probe.find.matches,
        },
      });
    else if (probe.find.status === FIND_ABORTED)
      pass(MED_RULES.queryOpen, `port ${port}: the peer aborted or closed the association at the C-FIND (query refused)`);
    else pass(MED_RULES.queryOpen, `port ${port}: C-FIND refused with status ${hex(probe.find.status)}`);
    if (probe.storageAccepted.length > 0)
      report.fail(MED_RULES.storeOpen, {
        ...place(port),
        detail: `Port ${port} accepted ${probe.storageAccepted.length} storage presentation context(s) from an unknown calling AE (negotiation only; nothing was stored).`,
        evidence: { port, called_ae: probe.calledAe, sop_classes: probe.storageAccepted },
      });
    else pass(MED_RULES.storeOpen, `port ${port}: no storage context accepted`);
  };

  for (const result of results) {
    const { port, random } = result;
    if (result.tls) tls.push(port);
    if (random.kind === 'closed_port' || random.kind === 'not_dicom' || (random.kind === 'failed' && result.tls)) {
      const what = random.kind === 'closed_port' ? 'closed' : result.tls ? 'TLS (associations over TLS are not attempted)' : 'not DICOM';
      for (const ruleId of DICOM_RULE_IDS.filter((id) => id !== MED_RULES.dicomCleartext)) pass(ruleId, `port ${port}: ${what}`);
      continue;
    }
    if (random.kind === 'failed') {
      report.error(DICOM_RULE_IDS, random.why);
      continue;
    }
    plain.push(port);
    if (random.kind === 'accepted') {
      report.fail(MED_RULES.anyCalledAe, {
        ...place(port),
        detail: `Port ${port} accepted an association addressed to a random called AE title.`,
        evidence: {
          port,
          echo_status: random.probe.echoStatus === undefined ? null : hex(random.probe.echoStatus),
          release: random.probe.ending,
        },
      });
      accepted(port, random.probe, 'to a random called AE');
      continue;
    }
    pass(MED_RULES.anyCalledAe, `port ${port}: a random called AE was ${rejection(random)}`);
    const callingChecked = random.source === 1 && random.reason === 3;
    if (callingChecked) pass(MED_RULES.anyCallingAe, `port ${port}: a random calling AE was ${rejection(random)}`);
    if (result.configured.length === 0) {
      const why = hasCalledAes ? 'not tried' : 'no called_ae in the scope, and AE titles are never guessed';
      if (callingChecked) {
        pass(MED_RULES.queryOpen, `port ${port}: unknown calling AEs are refused`);
        pass(MED_RULES.storeOpen, `port ${port}: unknown calling AEs are refused`);
      } else report.skip([MED_RULES.anyCallingAe, MED_RULES.queryOpen, MED_RULES.storeOpen], `port ${port}: ${why}`);
      continue;
    }
    for (const { index, probe } of result.configured) {
      if (probe.kind === 'accepted') accepted(port, probe.probe, `to called_ae #${index + 1} of the scope`);
      else if (probe.kind === 'rejected')
        for (const ruleId of [MED_RULES.anyCallingAe, MED_RULES.queryOpen, MED_RULES.storeOpen])
          pass(ruleId, `port ${port}: called_ae #${index + 1} ${rejection(probe)} a random calling AE`);
      else
        report.error(
          [MED_RULES.anyCallingAe, MED_RULES.queryOpen, MED_RULES.storeOpen],
          probe.kind === 'failed' ? probe.why : `port ${port}: called_ae #${index + 1}: ${probe.kind}`,
        );
    }
  }
  if (plain.length > 0 && tls.length === 0) {
    for (const port of plain)
      report.fail(MED_RULES.dicomCleartext, {
        ...place(port),
        detail: `Port ${port} speaks DICOM on plain TCP and no scanned DICOM port offers TLS.`,
        evidence: { port, tls_ports: [] },
      });
  } else if (plain.length > 0) pass(MED_RULES.dicomCleartext, `plain DICOM on ${plain.join(', ')}, TLS offered on ${tls.join(', ')}`);
  else pass(MED_RULES.dicomCleartext, 'no plain-TCP DICOM answered');
}
