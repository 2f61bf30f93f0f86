import type { FieldIssue } from './errors.ts';
import type { TargetPolicy } from './network-policy.ts';
import { targetRuleFor } from './scan-targets.ts';
import type { ScanType } from './scan-types.ts';
import { checkScope, type Scope } from './scope.ts';
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { MANIFESTS } from '../../layers/manifests.ts';
import { admissionProblem, deadlineProblem } from './resource-class.ts';

/** What a scan is of: the fields a schedule and a manual scan share (DESIGN §4). */
export interface ScanSubject {
  scan_type: ScanType;
  target: string;
  targets: string[];
  scope: Scope;
}

export interface SubjectRules {
  allowLegacyScopeKeys?: boolean;
  targetPolicy?: TargetPolicy;
  /**
   * The scan types this deployment can run. A subject of another type is refused on `scan_type`
   * (DESIGN §4); left out where the type is not being chosen (a PATCH that keeps it).
   */
  runnerTypes?: ReadonlySet<ScanType>;
  /** The engines' manifests whose resource class and `memoryMbPerTarget` admit the job (DESIGN §11); default MANIFESTS. */
  manifests?: readonly EngineManifest[];
}

/** Why a scan type is refused here, or null. */
export function runnerIssue(scanType: ScanType, runnerTypes: ReadonlySet<ScanType> | undefined): FieldIssue | null {
  return runnerTypes && !runnerTypes.has(scanType) ? { field: 'scan_type', message: 'has no runner in this deployment' } : null;
}

/**
 * The one check of a scan's subject, for schedules and manual scans alike: the target and each
 * `targets` entry per scan type (normalised) and the deployment's target policy (nothing inside the
 * deployment), no repeated target, the scope per scan type, and admission by the engine's memory
 * per target in its resource class.
 * Returns the normalised subject and every issue, so callers can add their own before throwing.
 */
export async function validateScanSubject(
  subject: ScanSubject,
  options: SubjectRules = {},
): Promise<{ subject: ScanSubject; issues: FieldIssue[] }> {
  const issues: FieldIssue[] = [];
  const noRunner = runnerIssue(subject.scan_type, options.runnerTypes);
  if (noRunner) issues.push(noRunner);
  const validateTarget = await targetRuleFor(subject.scan_type, options.targetPolicy);

  const target = validateTarget(subject.target);
  if (!target.ok) issues.push({ field: 'target', message: `${target.message} for scan_type ${subject.scan_type}` });

  const targets: string[] = [];
  subject.targets.forEach((entry, index) => {
    const result = validateTarget(entry);
    if (result.ok) targets.push(result.value);
    else issues.push({ field: `targets.${index}`, message: result.message });
  });
  if (new Set(targets).size !== targets.length) issues.push({ field: 'targets', message: 'must not repeat a target' });

  issues.push(...checkScope(subject.scan_type, subject.scope, { allowLegacyKeys: options.allowLegacyScopeKeys ?? false }));

  // Admission by memory (DESIGN §11, docs/resource-classes.md): a target whose engine needs more
  // than its class's dispatch function has can never run; refused here, before anything is stored.
  const manifest = (options.manifests ?? MANIFESTS).find((candidate) => candidate.scanTypes.includes(subject.scan_type));
  const unfit = admissionProblem(subject.scan_type, 1 + subject.targets.length, manifest);
  if (unfit !== null) issues.push({ field: 'targets', message: unfit });
  // Admission by time: a target whose least scan time is past its class's deadline would only ever
  // end partial; refused with the arithmetic. Only when the scope itself is valid.
  if (!issues.some((issue) => issue.field.startsWith('scope'))) {
    [target.ok ? target.value : subject.target, ...targets].forEach((entry, index) => {
      const late = deadlineProblem(subject.scan_type, subject.scope ?? {}, entry, manifest);
      if (late !== null) issues.push({ field: index === 0 ? 'target' : `targets.${index - 1}`, message: late });
    });
  }

  return {
    subject: { ...subject, target: target.ok ? target.value : subject.target, targets },
    issues,
  };
}
