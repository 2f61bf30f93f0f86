import * as z from 'zod';

/** DESIGN §22 defaults. */
export const DEFAULT_DICOM_PORTS = [104, 11112, 2762, 4242] as const;
export const DEFAULT_FHIR_BASES = ['/fhir', '/fhir/R4', '/baseR4', '/r4'] as const;
export const DEFAULT_DICOMWEB_BASES = ['/dicom-web', '/dicomweb', '/rs'] as const;
export const DEFAULT_HL7_PORTS = [2575] as const;

const Port = z.number().int().min(1).max(65_535);
/** An AE title as DICOM defines it (PS3.5 AE VR): 1–16 characters of the default repertoire, no backslash or control. */
const AeTitle = z
  .string()
  .regex(/^[\x20-\x5b\x5d-\x7e]{1,16}$/, 'an AE title is 1 to 16 printable characters without a backslash')
  .refine((value) => value.trim().length > 0, 'an AE title is not all spaces');
const BasePath = z
  .string()
  .max(200)
  .regex(/^\/[A-Za-z0-9._~\-/]*$/, 'a base path starts with / and holds only path characters');

/**
 * The scope of a medical scan (DESIGN §22): what the API accepts and the CLI's --scope-json reads.
 * `called_ae` are titles the tenant knows; the scan never guesses one.
 */
export const MedscanScope = z.lazy(() =>
  z.strictObject({
    dicom_ports: z
      .array(Port)
      .max(16)
      .meta({ title: 'DICOM ports', description: 'DICOM ports to probe when the target is a host (default [104, 11112, 2762, 4242])' })
      .default([...DEFAULT_DICOM_PORTS]),
    called_ae: z
      .array(AeTitle)
      .max(5)
      .meta({
        title: 'Called AE titles',
        description: 'AE titles you know the node answers to; tried only when a random called AE is refused, never guessed',
      })
      .default([]),
    fhir_bases: z
      .array(BasePath)
      .max(8)
      .meta({ title: 'FHIR base paths', description: 'Paths probed for a FHIR server (default /fhir, /fhir/R4, /baseR4, /r4)' })
      .default([...DEFAULT_FHIR_BASES]),
    dicomweb_bases: z
      .array(BasePath)
      .max(8)
      .meta({ title: 'DICOMweb base paths', description: 'Paths probed for QIDO-RS (default /dicom-web, /dicomweb, /rs)' })
      .default([...DEFAULT_DICOMWEB_BASES]),
    hl7_ports: z
      .array(Port)
      .max(8)
      .meta({ title: 'HL7 MLLP ports', description: 'Ports probed with an empty MLLP frame when the target is a host (default [2575])' })
      .default([...DEFAULT_HL7_PORTS]),
    connect_timeout_ms: z.number().int().min(100).max(30_000).default(3000),
  }),
);
export type MedscanScope = z.infer<typeof MedscanScope>;
