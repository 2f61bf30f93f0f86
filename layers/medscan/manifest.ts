/** medscan's manifest (DESIGN §11, §22; docs/manifests.md): a leaf module of data. */
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { catalogue } from './src/catalogue.ts';
import { MedscanScope } from './src/scope.ts';

const manifest = {
  name: 'medscan',
  scanTypes: ['medical'],
  settingsPrefix: 'MEDSCAN_',
  status: 'beta',
  targetKind: 'host_port_or_url',
  scope: () => MedscanScope,
  catalogue: () => catalogue,
  // A few ports, one association at a time, a handful of GETs: well inside a minute.
  resourceClass: 'standard',
  // Every read is capped (64 KiB PDUs, 2 MiB CapabilityStatement): the peak stays near 70 MB.
  memoryMbPerTarget: 128,
  entry: 'src/bin/medscan.ts',
  bundleBudgetKiB: 200,
  testNeeds: {
    debian: ['dcmtk', 'orthanc', 'orthanc-dicomweb', 'nmap', 'openssl'],
    binaries: ['storescp', 'dcmqrscp', 'echoscu', 'findscu', 'dump2dcm', 'storescu', 'Orthanc', 'nmap', 'openssl'],
  },
  doc: 'docs/medscan.md',
  summary: 'medical: DICOM, DICOMweb, Orthanc, FHIR and HL7 MLLP exposed without access control, proven without touching patient data',
} as const satisfies EngineManifest;

export default manifest;
