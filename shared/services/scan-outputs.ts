import { createHash } from 'node:crypto';
import { ARTIFACT_TTL_DAYS, ArtifactPurpose, MAX_ARTIFACT_BYTES, type ArtifactRecord } from '../domain/artifact.ts';
import { COMPONENT_CHANGES_KEPT, componentChanges, isInventoryType, purlsOf } from '../domain/inventory.ts';
import { FINISHED_STATUSES, type ComponentChanges, type ScanJobRecord, type ScanOutput } from '../domain/scan-job.ts';
import type { ArtifactRepository } from '../ports/artifact-repository.ts';
import type { ArtifactStore } from '../ports/artifact-store.ts';
import type { Clock } from '../ports/clock.ts';
import type { IdGenerator } from '../ports/id-generator.ts';
import type { RunnerOutput } from '../ports/scan-runner.ts';
import type { ScanRepository } from '../ports/scan-repository.ts';

/** Where a scan's outputs go: artifacts of the scan's tenant (rows and bytes). */
export interface OutputArtifacts {
  store: ArtifactStore;
  repo: ArtifactRepository;
  ids: IdGenerator;
}

/** Older scans of a target looked at for the previous inventory: 5 pages of 20. */
const PREVIOUS_PAGES = 5;
const PAGE = 20;

/**
 * Keeps the documents a scan's runner returned (the ones its manifest declares, DESIGN §11) as
 * artifacts of the scan's tenant, linked to the scan and target, and compares inventories with the
 * target's previous one (`changes.components`). Errors are returned, never thrown: a document that
 * could not be kept makes the scan partial, it does not lose the findings.
 */
export function makeScanOutputs({ artifacts, scans, clock }: { artifacts?: OutputArtifacts; scans: ScanRepository; clock: Clock }) {
  async function keep(job: ScanJobRecord, target: string, output: RunnerOutput): Promise<ScanOutput> {
    if (!artifacts) throw new Error(`output ${output.name} not kept: this deployment has no artifact store for scans`);
    const purpose = ArtifactPurpose.safeParse(output.purpose);
    if (!purpose.success) throw new Error(`output ${output.name} has an unknown artifact purpose ${output.purpose}`);
    const bytes = Buffer.from(JSON.stringify(output.document));
    if (bytes.length > MAX_ARTIFACT_BYTES[purpose.data])
      throw new Error(`output ${output.name} is ${bytes.length} bytes, over the ${MAX_ARTIFACT_BYTES[purpose.data]} bytes kept`);
    const now = clock.now();
    const record: ArtifactRecord = {
      id: artifacts.ids.newId('art'),
      tenant: job.tenant,
      purpose: purpose.data,
      filename: `${job.id}-${output.name}.json`,
      size: bytes.length,
      content_type: output.contentType,
      status: 'ready',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      reason: null,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + ARTIFACT_TTL_DAYS * 86_400_000).toISOString(),
      scan_id: job.id,
      target,
    };
    // Bytes first: a row never names an object that is not there.
    await artifacts.store.write(job.tenant, record.id, bytes, output.contentType);
    await artifacts.repo.create(record);
    return {
      name: output.name,
      purpose: output.purpose,
      target,
      artifact_id: record.id,
      content_type: output.contentType,
      size: bytes.length,
    };
  }

  /** The newest finished scan before `job` of its tenant, scan type and target whose output `name` can still be read. */
  async function previousInventory(job: ScanJobRecord, output: ScanOutput): Promise<{ scanId: string; purls: Set<string> } | null> {
    if (!artifacts) return null;
    let cursor: string | undefined;
    for (let page = 0; page < PREVIOUS_PAGES; page += 1) {
      const found = await scans.list(job.tenant, { scanType: job.scan_type, target: output.target }, PAGE, cursor);
      for (const scan of found.items) {
        if (scan.id === job.id || !FINISHED_STATUSES.includes(scan.status) || scan.created_at > job.created_at) continue;
        const earlier = scan.outputs?.find((item) => item.name === output.name && item.target === output.target);
        if (!earlier) continue;
        const purpose = ArtifactPurpose.safeParse(earlier.purpose);
        if (!purpose.success) continue;
        const bytes = await artifacts.store.read(job.tenant, earlier.artifact_id, MAX_ARTIFACT_BYTES[purpose.data]);
        if (!bytes) continue; // expired with its artifact: look further back
        let purls: Set<string> | null = null;
        try {
          purls = purlsOf(JSON.parse(bytes.toString('utf8')));
        } catch {
          purls = null;
        }
        if (purls) return { scanId: scan.id, purls };
      }
      if (!found.nextCursor) break;
      cursor = found.nextCursor;
    }
    return null;
  }

  return {
    /**
     * Stores every output and compares the inventories among them with the target's previous
     * ones; `components` sums over the inventories (one per target).
     */
    async save(
      job: ScanJobRecord,
      returned: readonly { target: string; output: RunnerOutput }[],
    ): Promise<{ outputs: ScanOutput[]; components?: ComponentChanges; errors: { target: string; message: string }[] }> {
      const outputs: ScanOutput[] = [];
      const errors: { target: string; message: string }[] = [];
      let components: ComponentChanges | undefined;
      for (const { target, output } of returned) {
        let stored: ScanOutput;
        try {
          stored = await keep(job, target, output);
        } catch (error) {
          errors.push({ target, message: error instanceof Error ? error.message : String(error) });
          continue;
        }
        outputs.push(stored);
        const purls = isInventoryType(output.contentType) ? purlsOf(output.document) : null;
        if (!purls) continue;
        let previous: Awaited<ReturnType<typeof previousInventory>> = null;
        try {
          previous = await previousInventory(job, stored);
        } catch (error) {
          errors.push({ target, message: `previous inventory not read: ${error instanceof Error ? error.message : String(error)}` });
          continue;
        }
        components = sumOf(components, componentChanges(purls, previous));
      }
      return { outputs, ...(components ? { components } : {}), errors };
    },
  };
}

function sumOf(sum: ComponentChanges | undefined, next: ComponentChanges): ComponentChanges {
  if (!sum) return next;
  return {
    count: sum.count + next.count,
    since_scan_id: sum.since_scan_id ?? next.since_scan_id,
    added_count: sum.added_count + next.added_count,
    removed_count: sum.removed_count + next.removed_count,
    added: [...sum.added, ...next.added].slice(0, COMPONENT_CHANGES_KEPT),
    removed: [...sum.removed, ...next.removed].slice(0, COMPONENT_CHANGES_KEPT),
    truncated:
      sum.truncated ||
      next.truncated ||
      sum.added.length + next.added.length > COMPONENT_CHANGES_KEPT ||
      sum.removed.length + next.removed.length > COMPONENT_CHANGES_KEPT,
  };
}
