/**
 * medscan's finding catalogue (DESIGN §22): `medscan rules` prints it, docs/medscan.md documents
 * it. Every rule gets one check in every report.
 */
import type { Rule } from '../../../lib/report.ts';

export const MED_RULES = {
  anyCalledAe: 'med.dicom.any_called_ae',
  anyCallingAe: 'med.dicom.any_calling_ae',
  queryOpen: 'med.dicom.query_open',
  storeOpen: 'med.dicom.store_open',
  dicomCleartext: 'med.dicom.cleartext',
  qido: 'med.dicomweb.qido_unauthenticated',
  orthanc: 'med.orthanc.rest_unauthenticated',
  fhirDetected: 'med.fhir.detected',
  fhirNoSecurity: 'med.fhir.no_security_declared',
  fhirRead: 'med.fhir.unauthenticated_read',
  smartWeak: 'med.fhir.smart_weak',
  mllpExposed: 'med.hl7.mllp_exposed',
  hl7Cleartext: 'med.hl7.cleartext',
} as const;

export const DICOM_RULE_IDS = [
  MED_RULES.anyCalledAe,
  MED_RULES.anyCallingAe,
  MED_RULES.queryOpen,
  MED_RULES.storeOpen,
  MED_RULES.dicomCleartext,
];
export const HTTP_RULE_IDS = [
  MED_RULES.qido,
  MED_RULES.orthanc,
  MED_RULES.fhirDetected,
  MED_RULES.fhirNoSecurity,
  MED_RULES.fhirRead,
  MED_RULES.smartWeak,
];
export const HL7_RULE_IDS = [MED_RULES.mllpExposed, MED_RULES.hl7Cleartext];

const CWE = (n: number) => `https://cwe.mitre.org/data/definitions/${n}.html`;
const DICOM_PS3_8 = 'https://dicom.nema.org/medical/dicom/current/output/html/part08.html';
const DICOM_PS3_15_TLS = 'https://dicom.nema.org/medical/dicom/current/output/html/part15.html#sect_B.1';
const CISA_DICOM = 'https://www.cisa.gov/news-events/ics-medical-advisories';
const FHIR_SECURITY = 'https://hl7.org/fhir/R4/security.html';
const SMART = 'https://hl7.org/fhir/smart-app-launch/conformance.html';
const MLLP = 'https://www.hl7.org/implement/standards/product_brief.cfm?product_id=55';

export const catalogue: readonly Rule[] = [
  {
    rule_id: MED_RULES.anyCalledAe,
    severity: 'high',
    title: 'DICOM accepts any called AE title',
    description: 'An association addressed to a random called AE title is accepted: the node does not check whom it is being called as.',
    remediation: 'Configure the DICOM node to accept only its own AE title(s) and to reject associations to any other called AE.',
    tags: ['dicom', 'access-control'],
    references: [DICOM_PS3_8, CISA_DICOM],
    cwe: 'CWE-284',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.anyCallingAe,
    severity: 'medium',
    title: 'DICOM accepts unknown calling AE titles',
    description:
      'An association from a random, unknown calling AE title is accepted (to a random called AE or to a called_ae of the scope): the node has no peer allow-list.',
    remediation: 'Keep an allow-list of peer AE titles (and their addresses) and reject every other calling AE.',
    tags: ['dicom', 'access-control'],
    references: [DICOM_PS3_8, CWE(284)],
    cwe: 'CWE-284',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.queryOpen,
    severity: 'critical',
    title: 'DICOM query open to unknown peers',
    description:
      'A C-FIND from an unknown calling AE (to a called_ae of the scope or a random one) for a random, non-existent patient id completes with success: anyone can query the archive. Nothing is returned by such a query and no match would be kept.',
    remediation:
      'Restrict query/retrieve to known peers (AE title and address), and put the archive behind a VPN or DICOM-TLS with client certificates.',
    tags: ['dicom', 'access-control', 'phi'],
    references: [DICOM_PS3_8, CISA_DICOM, CWE(306)],
    cwe: 'CWE-306',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.storeOpen,
    severity: 'high',
    title: 'DICOM storage accepted from unknown peers',
    description: 'A storage presentation context is accepted for an unknown calling AE (negotiation only: no C-STORE is ever sent).',
    remediation: 'Accept storage only from known modalities and peers; reject storage contexts for every other calling AE.',
    tags: ['dicom', 'access-control', 'integrity'],
    references: [DICOM_PS3_8, CWE(284)],
    cwe: 'CWE-284',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.dicomCleartext,
    severity: 'medium',
    title: 'DICOM without TLS',
    description: 'DICOM answers on plain TCP and none of the scanned DICOM ports offers TLS (DICOM-TLS, PS3.15 B.1).',
    remediation: 'Offer DICOM over TLS (port 2762 by convention) and retire the plain port, or confine it to a segmented network.',
    tags: ['dicom', 'cleartext'],
    references: [DICOM_PS3_15_TLS, CWE(319)],
    cwe: 'CWE-319',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.qido,
    severity: 'critical',
    title: 'DICOMweb search without authentication',
    description: 'A QIDO-RS search (GET {base}/studies) for a random study instance UID answers 200 or 204 without credentials.',
    remediation: 'Require authentication (OAuth 2 bearer tokens, as the DICOMweb standard recommends) on every DICOMweb endpoint.',
    tags: ['dicomweb', 'authentication', 'phi'],
    references: ['https://dicom.nema.org/medical/dicom/current/output/html/part18.html', CWE(306)],
    cwe: 'CWE-306',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.orthanc,
    severity: 'critical',
    title: 'Orthanc REST API without authentication',
    description: 'Orthanc’s GET /system answers without credentials: its REST API (every study, and uploads and deletions) is open.',
    remediation:
      'Set AuthenticationEnabled to true with RegisteredUsers (or an authorization plugin), and RemoteAccessAllowed only behind a proxy that authenticates.',
    tags: ['orthanc', 'authentication', 'phi'],
    references: ['https://orthanc.uclouvain.be/book/faq/security.html', CWE(306)],
    cwe: 'CWE-306',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.fhirDetected,
    severity: 'info',
    title: 'FHIR server',
    description: 'A FHIR server answers GET {base}/metadata with a CapabilityStatement (evidence: FHIR version, software).',
    remediation: 'None needed if the server is meant to be reachable from here; otherwise restrict who can reach it.',
    tags: ['fhir', 'inventory'],
    references: ['https://hl7.org/fhir/R4/capabilitystatement.html'],
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.fhirNoSecurity,
    severity: 'medium',
    title: 'FHIR server declares no security',
    description:
      'The CapabilityStatement has no rest.security, no SMART oauth-uris extension, and {base}/.well-known/smart-configuration is absent.',
    remediation: 'Protect the server with SMART on FHIR (OAuth 2) and declare it in rest.security and .well-known/smart-configuration.',
    tags: ['fhir', 'authentication'],
    references: [FHIR_SECURITY, SMART],
    cwe: 'CWE-306',
    confidence: 'medium',
  },
  {
    rule_id: MED_RULES.fhirRead,
    severity: 'critical',
    title: 'FHIR resources readable without authentication',
    description:
      'GET {base}/Patient?_summary=count (and Observation, Encounter) answers a Bundle with a total without credentials. Only the counts are kept; bodies are never stored.',
    remediation: 'Require an access token for every read; answer 401 to unauthenticated requests.',
    tags: ['fhir', 'authentication', 'phi'],
    references: [FHIR_SECURITY, CWE(306)],
    cwe: 'CWE-306',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.smartWeak,
    severity: 'medium',
    title: 'Weak SMART on FHIR configuration',
    description: 'The SMART configuration does not offer S256 PKCE, offers the `plain` method, or offers the implicit or password grants.',
    remediation: 'Offer only S256 for PKCE and require it; drop the implicit and password (resource-owner) grants.',
    tags: ['fhir', 'oauth'],
    references: [SMART, 'https://www.rfc-editor.org/rfc/rfc9700', CWE(287)],
    cwe: 'CWE-287',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.mllpExposed,
    severity: 'high',
    title: 'HL7 v2 MLLP listener reachable',
    description:
      'A port answers an empty MLLP frame with a framed HL7 ACK or NAK: an HL7 v2 interface engine takes messages from here. A port that answers anything else passes.',
    remediation:
      'Restrict the MLLP listener to the systems that feed it (firewall, VPN), and authenticate peers (MLLP over TLS with client certificates).',
    tags: ['hl7', 'exposure'],
    references: [MLLP, CWE(668)],
    cwe: 'CWE-668',
    confidence: 'high',
  },
  {
    rule_id: MED_RULES.hl7Cleartext,
    severity: 'medium',
    title: 'HL7 v2 without TLS',
    description: 'An MLLP listener answers on plain TCP: HL7 messages, patient data included, cross the network unencrypted.',
    remediation: 'Wrap MLLP in TLS (or a VPN) between every pair of systems.',
    tags: ['hl7', 'cleartext'],
    references: [MLLP, CWE(319)],
    cwe: 'CWE-319',
    confidence: 'high',
  },
];
