import type { EngineManifest, ResourceClass } from '../../lib/engine-manifest.ts';
import { MANIFESTS, manifestOfScanType } from '../../layers/manifests.ts';
import { RESOURCE_CLASS_NAMES } from '../config/environment.ts';
import { desiredTrigger, type TargetedTrigger, type Trigger } from './trigger.ts';

export type { ResourceClass } from '../../lib/engine-manifest.ts';

/**
 * What one resource class's dispatch function has (DESIGN §11 "Resource classes",
 * docs/resource-classes.md). In AWS each class has its own scan queue, DLQ and dispatch function;
 * a fire and a manual scan land on the queue of their type's class.
 */
export interface ResourceClassSpec {
  /** The dispatch function's memory: what a job's targets share (and the CPU Lambda gives with it). */
  memoryMb: number;
  /** The dispatch function's timeout: one job per invocation. */
  timeoutSeconds: number;
  /**
   * Time kept back from the invocation for writing findings and the final status, so a scan ends at
   * the class's deadline (timeout − margin) with a partial report instead of being cut off.
   */
  marginSeconds: number;
  /** /tmp before the engines' own needs (their compile caches, mailscan's start-up snapshot). */
  tmpBaseMib: number;
}

/**
 * standard: 1 GB, a 5-minute function (deadline 4 min 50 s), 512 MiB of /tmp before the engines'
 * packs; long: 3 GB, the 15-minute Lambda maximum with a minute kept back (the 14-minute deadline),
 * 4 GiB of /tmp.
 */
export const RESOURCE_CLASSES: Readonly<Record<ResourceClass, ResourceClassSpec>> = {
  standard: { memoryMb: 1024, timeoutSeconds: 300, marginSeconds: 10, tmpBaseMib: 512 },
  long: { memoryMb: 3072, timeoutSeconds: 900, marginSeconds: 60, tmpBaseMib: 4096 },
};

/** The class every scan type without an engine (and every adversary step, mailscan's) runs in. */
export const DEFAULT_RESOURCE_CLASS: ResourceClass = 'standard';

export function isResourceClass(value: string): value is ResourceClass {
  return Object.hasOwn(RESOURCE_CLASSES, value);
}

/** The class of the engine that runs `scanType` (its manifest's `resourceClass`), else standard. */
export function resourceClassOf(scanType: string): ResourceClass {
  return manifestOfScanType(scanType)?.resourceClass ?? DEFAULT_RESOURCE_CLASS;
}

/**
 * The classes this build deploys: standard always (the queue of fires whose type lost its engine,
 * and of adversary steps), and every class a manifest names, in RESOURCE_CLASSES order.
 */
export function deployedResourceClasses(manifests: readonly EngineManifest[] = MANIFESTS): ResourceClass[] {
  const named = new Set<ResourceClass>([DEFAULT_RESOURCE_CLASS, ...manifests.map((manifest) => manifest.resourceClass)]);
  return (Object.keys(RESOURCE_CLASSES) as ResourceClass[]).filter((name) => named.has(name));
}

/**
 * How many of a job's targets its class's dispatch function runs at once: as many as fit the
 * function's memory at the engine's `memoryMbPerTarget` (DESIGN §11), never more than `cap` (the
 * scan engine's `targetConcurrency`, when a deployment sets one), and at least one. A type without
 * a manifest (a test runner) runs `cap` at once, or one without a cap.
 */
export function targetsAtOnce(scanType: string, cap?: number, manifest = manifestOfScanType(scanType)): number {
  if (manifest === undefined) return Math.max(1, cap ?? 1);
  const fit = Math.floor(RESOURCE_CLASSES[manifest.resourceClass].memoryMb / manifest.memoryMbPerTarget);
  return Math.max(1, Math.min(cap ?? fit, fit));
}

/**
 * Why a job of `scanType` with `targetCount` targets cannot run in its class, or null when it can.
 * Admission by memory (DESIGN §11): each target's scan may use the engine's `memoryMbPerTarget`,
 * so one target that needs more than its class's function has can never run, and the message says
 * the arithmetic. A job of more targets than fit at once runs them in rounds (targetsAtOnce).
 */
export function admissionProblem(scanType: string, targetCount: number, manifest = manifestOfScanType(scanType)): string | null {
  if (manifest === undefined) return null;
  const spec = RESOURCE_CLASSES[manifest.resourceClass];
  if (manifest.memoryMbPerTarget <= spec.memoryMb) return null;
  return (
    `${scanType} needs ${manifest.memoryMbPerTarget} MB per target (${manifest.name}'s manifest) and its ` +
    `${manifest.resourceClass} class's dispatch function has ${spec.memoryMb} MB: ` +
    `${targetCount} target${targetCount === 1 ? '' : 's'} × ${manifest.memoryMbPerTarget} MB = ` +
    `${targetCount * manifest.memoryMbPerTarget} MB, and not even one target fits`
  );
}

/** A class's deadline: the function's timeout less the time kept back to write the result. */
export function deadlineSeconds(resourceClass: ResourceClass): number {
  const spec = RESOURCE_CLASSES[resourceClass];
  return spec.timeoutSeconds - spec.marginSeconds;
}

/**
 * Why a target's scan cannot finish inside its class's deadline, or null (DESIGN §11): the
 * engine's least time for it under `scope` (its manifest's minimumSeconds), against the deadline,
 * with the arithmetic and what to change. Engines that cannot say it from the scope admit all.
 */
export function deadlineProblem(
  scanType: string,
  scope: Record<string, unknown>,
  target: string,
  manifest = manifestOfScanType(scanType),
): string | null {
  const least = manifest?.minimumSeconds?.(scope, target);
  if (!manifest || !least) return null;
  const deadline = deadlineSeconds(manifest.resourceClass);
  if (least.seconds <= deadline) return null;
  return (
    `cannot finish in time: ${least.arithmetic}, more than the ${deadline} s a ${scanType} scan has ` +
    `(its ${manifest.resourceClass} class's deadline); scan fewer ports, a smaller network (or split it ` +
    `into smaller blocks as targets), or a higher rate`
  );
}

/**
 * The trigger a row owns (desiredTrigger) with the queue its fires go to: the scan queue of its
 * scan type's class. The trigger scheduler provisions it; reconcile compares it.
 */
export function targetedTrigger(record: { enabled: boolean; trigger_definition: Trigger; scan_type: string }): TargetedTrigger | null {
  const trigger = desiredTrigger(record);
  return trigger === null ? null : { ...trigger, queue: resourceClassOf(record.scan_type) };
}

// The class names the environment variables know are exactly the manifests' type's (a compile-time check).
const sameNames: [ResourceClass] extends [(typeof RESOURCE_CLASS_NAMES)[number]]
  ? [(typeof RESOURCE_CLASS_NAMES)[number]] extends [ResourceClass]
    ? true
    : never
  : never = true;
void sameNames;
