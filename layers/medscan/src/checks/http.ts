/**
 * The HTTP checks of DESIGN §22: FHIR (CapabilityStatement, declared security, SMART configuration,
 * `_summary=count` reads), DICOMweb QIDO-RS and Orthanc's REST API, all without credentials and
 * all GETs. Bodies are parsed for the few fields the rules need and dropped: a count, a status, a
 * version; never a resource.
 */
import { HTTP_RULE_IDS, MED_RULES } from '../catalogue.ts';
import type { Coverage, ReportBuilder } from '../../../../lib/report.ts';
import { HttpFailed, type HttpAnswer, type HttpGet } from '../http-client.ts';
import { randomUid } from '../random.ts';

export const FHIR_JSON = 'application/fhir+json, application/json;q=0.9';
const SMART_OAUTH_URIS = 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris';
const COUNTED_RESOURCES = ['Patient', 'Observation', 'Encounter'] as const;
const CAPABILITY_MAX_BYTES = 2 * 1024 * 1024;
const SMALL_MAX_BYTES = 256 * 1024;

export interface HttpContext {
  get: HttpGet;
  report: ReportBuilder;
  timeoutMs: number;
  signal: AbortSignal;
}

/** One origin and the base paths to probe on it. */
export interface HttpPlan {
  origin: string;
  fhirBases: readonly string[];
  dicomwebBases: readonly string[];
}

function json(answer: HttpAnswer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(answer.body.toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const join = (origin: string, base: string, path: string): string => `${origin}${base.replace(/\/+$/, '')}${path}`;
const record = (value: unknown): Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const short = (value: unknown): string | null => (typeof value === 'string' ? value.slice(0, 100) : null);

export class OriginUnreachable extends Error {}

async function get(context: HttpContext, url: string, accept: string, maxBytes: number): Promise<HttpAnswer> {
  return context.get(url, { accept, maxBytes, timeoutMs: context.timeoutMs, signal: context.signal });
}

/** FHIR on one base: returns false when the base serves no CapabilityStatement. */
async function probeFhirBase(context: HttpContext, plan: HttpPlan, base: string, coverage: Coverage): Promise<boolean> {
  const { report } = context;
  const subject = `${plan.origin}${base}`;
  const place = { fingerprint_key: subject, subject, locations: [`web:${base}`] };
  const metadata = await get(context, join(plan.origin, base, '/metadata'), FHIR_JSON, CAPABILITY_MAX_BYTES);
  const capability = metadata.status === 200 ? json(metadata) : undefined;
  if (!capability || (capability.resourceType !== 'CapabilityStatement' && capability.resourceType !== 'Conformance')) return false;
  const software = record(capability.software);
  report.fail(MED_RULES.fhirDetected, {
    ...place,
    detail: `A FHIR server answers at ${subject} (FHIR ${short(capability.fhirVersion) ?? 'version not given'}).`,
    evidence: {
      base: subject,
      fhir_version: short(capability.fhirVersion),
      software: short(software.name),
      software_version: short(software.version),
    },
  });
  const rests = list(capability.rest).map(record);
  const securities = rests
    .map((rest) => rest.security)
    .filter((security) => security !== undefined)
    .map(record);
  const smartExtension = securities.some((security) =>
    list(security.extension).some((extension) => record(extension).url === SMART_OAUTH_URIS),
  );
  const smartAnswer = await get(context, join(plan.origin, base, '/.well-known/smart-configuration'), 'application/json', SMALL_MAX_BYTES);
  const smart = smartAnswer.status === 200 ? json(smartAnswer) : undefined;
  if (securities.length === 0 && !smartExtension && !smart)
    report.fail(MED_RULES.fhirNoSecurity, {
      ...place,
      detail: `${subject}: the CapabilityStatement declares no security and no SMART configuration is served.`,
      evidence: { base: subject, smart_configuration_status: smartAnswer.status },
    });
  else
    report.pass(MED_RULES.fhirNoSecurity, `${subject}: ${securities.length > 0 ? 'rest.security declared' : 'SMART declared'}`, coverage);
  if (smart) {
    const methods = list(smart.code_challenge_methods_supported).filter((method): method is string => typeof method === 'string');
    const grants = list(smart.grant_types_supported).filter((grant): grant is string => typeof grant === 'string');
    const weaknesses = [
      ...(methods.includes('S256') ? [] : ['no S256 PKCE']),
      ...(methods.includes('plain') ? ['PKCE plain offered'] : []),
      ...grants.filter((grant) => grant === 'implicit' || grant === 'password').map((grant) => `${grant} grant offered`),
    ];
    if (weaknesses.length > 0)
      report.fail(MED_RULES.smartWeak, {
        ...place,
        detail: `${subject}: ${weaknesses.join(', ')}.`,
        evidence: {
          base: subject,
          weaknesses,
          code_challenge_methods_supported: methods.slice(0, 10),
          grant_types_supported: grants.slice(0, 10),
        },
      });
    else report.pass(MED_RULES.smartWeak, `${subject}: S256 PKCE, no plain, implicit or password`, coverage);
  } else report.pass(MED_RULES.smartWeak, `${subject}: no SMART configuration`, coverage);
  const counts: Record<string, number> = {};
  const statuses: Record<string, number> = {};
  for (const resource of COUNTED_RESOURCES) {
    const answer = await get(context, join(plan.origin, base, `/${resource}?_summary=count`), FHIR_JSON, SMALL_MAX_BYTES);
    statuses[resource] = answer.status;
    if (answer.status < 200 || answer.status > 299) continue;
    const bundle = json(answer);
    if (bundle?.resourceType === 'Bundle' && typeof bundle.total === 'number') counts[resource] = bundle.total;
  }
  if (Object.keys(counts).length > 0)
    report.fail(MED_RULES.fhirRead, {
      ...place,
      detail: `${subject}: ${Object.entries(counts)
        .map(([resource, total]) => `${resource} total ${total}`)
        .join(', ')}, without credentials.`,
      evidence: { base: subject, totals: counts, statuses },
    });
  else
    report.pass(
      MED_RULES.fhirRead,
      `${subject}: ${Object.entries(statuses)
        .map(([resource, status]) => `${resource} ${status}`)
        .join(', ')}`,
      coverage,
    );
  return true;
}

async function probeQido(context: HttpContext, plan: HttpPlan, base: string, coverage: Coverage): Promise<void> {
  const subject = `${plan.origin}${base}`;
  const answer = await get(
    context,
    join(plan.origin, base, `/studies?StudyInstanceUID=${randomUid()}`),
    'application/dicom+json, application/json;q=0.9',
    SMALL_MAX_BYTES,
  );
  if (answer.status === 200 || answer.status === 204)
    context.report.fail(MED_RULES.qido, {
      fingerprint_key: subject,
      subject,
      locations: [`web:${base}`],
      detail: `${subject}: a QIDO-RS search answered ${answer.status} without credentials.`,
      evidence: { base: subject, status: answer.status },
    });
  else context.report.pass(MED_RULES.qido, `${subject}: QIDO-RS answered ${answer.status}`, coverage);
}

async function probeOrthanc(context: HttpContext, plan: HttpPlan, coverage: Coverage): Promise<void> {
  const answer = await get(context, `${plan.origin}/system`, 'application/json', SMALL_MAX_BYTES);
  const system = answer.status === 200 ? json(answer) : undefined;
  const isOrthanc =
    system !== undefined &&
    (typeof system.ApiVersion === 'number' || typeof system.DicomAet === 'string') &&
    typeof system.Version === 'string';
  if (isOrthanc)
    context.report.fail(MED_RULES.orthanc, {
      fingerprint_key: `${plan.origin}/system`,
      subject: `${plan.origin}/system`,
      locations: ['web:/system'],
      detail: `${plan.origin}: Orthanc ${short(system.Version)} answers /system without authentication.`,
      evidence: {
        origin: plan.origin,
        version: short(system.Version),
        api_version: typeof system.ApiVersion === 'number' ? system.ApiVersion : null,
      },
    });
  else
    context.report.pass(
      MED_RULES.orthanc,
      `${plan.origin}/system answered ${answer.status}${answer.status === 200 ? ' (not Orthanc)' : ''}`,
      coverage,
    );
}

/** Every HTTP check on one origin; a failure that leaves a check unfinished makes it an error. */
export async function probeOrigin(context: HttpContext, plan: HttpPlan): Promise<'answered' | 'closed'> {
  const coverage: Coverage = { kind: 'web', origin: plan.origin, paths: ['/system', ...plan.dicomwebBases, ...plan.fhirBases] };
  const steps: [readonly string[], () => Promise<unknown>][] = [
    [[MED_RULES.orthanc], () => probeOrthanc(context, plan, coverage)],
    ...plan.dicomwebBases.map((base): [readonly string[], () => Promise<unknown>] => [
      [MED_RULES.qido],
      () => probeQido(context, plan, base, coverage),
    ]),
    ...plan.fhirBases.map((base): [readonly string[], () => Promise<unknown>] => [
      [MED_RULES.fhirDetected, MED_RULES.fhirNoSecurity, MED_RULES.fhirRead, MED_RULES.smartWeak],
      async () => {
        if (!(await probeFhirBase(context, plan, base, coverage)))
          for (const ruleId of [MED_RULES.fhirDetected, MED_RULES.fhirNoSecurity, MED_RULES.fhirRead, MED_RULES.smartWeak])
            context.report.pass(ruleId, `${plan.origin}${base}: no CapabilityStatement`, coverage);
      },
    ]),
  ];
  for (const [index, [ruleIds, step]] of steps.entries()) {
    try {
      await step();
    } catch (error) {
      if (error instanceof HttpFailed && error.code === 'refused' && index === 0) {
        for (const ruleId of HTTP_RULE_IDS) context.report.pass(ruleId, `${plan.origin}: nothing listening`, coverage);
        return 'closed';
      }
      if (error instanceof HttpFailed || (error instanceof Error && error.name === 'TargetRefused'))
        context.report.error(ruleIds, error.message);
      else throw error;
    }
  }
  return 'answered';
}
