import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeLocalArtifactStore } from '../../shared/adapters/local/local-artifact-store.ts';
import { makeUlidGenerator } from '../../shared/adapters/ids/ulid-id-generator.ts';
import { queuedJob, type ScanJobRecord } from '../../shared/domain/scan-job.ts';
import type { ArtifactStore } from '../../shared/ports/artifact-store.ts';
import type { RunnerOutput } from '../../shared/ports/scan-runner.ts';
import { makeScanOutputs } from '../../shared/services/scan-outputs.ts';
import { InMemoryArtifactRepository } from '../fakes/in-memory-artifact-repository.ts';
import { InMemoryScanRepository } from '../fakes/in-memory-scan-repository.ts';
import { ManualClock } from '../fakes/manual-clock.ts';

const TARGET = 'https://git.example/acme/app.git';

function inventory(...purls: string[]): RunnerOutput {
  return {
    name: 'sbom',
    purpose: 'sbom',
    contentType: 'application/vnd.cyclonedx+json',
    document: { bomFormat: 'CycloneDX', specVersion: '1.6', components: purls.map((purl) => ({ type: 'library', name: purl, purl })) },
  };
}

describe('scan outputs: kept as artifacts, inventories compared with the target’s previous one', () => {
  let root: string;
  let store: ArtifactStore;
  let scans: InMemoryScanRepository;
  let repo: InMemoryArtifactRepository;
  const clock = new ManualClock('2026-03-02T10:00:00Z');
  const ids = makeUlidGenerator();
  let made = 0;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'scan-outputs-'));
    store = makeLocalArtifactStore({ root, baseUrl: () => 'http://127.0.0.1', signingKey: 'k' });
    scans = new InMemoryScanRepository();
    repo = new InMemoryArtifactRepository();
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  /** A job of acme's sbom schedule, created a minute after the previous one. */
  async function job(): Promise<ScanJobRecord> {
    made += 1;
    const record = queuedJob({
      id: ids.newId('scan'),
      tenant: 'acme',
      scan_type: 'sbom',
      target: TARGET,
      targets: [],
      scope: {},
      source_type: 'manual',
      schedule_id: null,
      trigger: 'manual',
      scheduled_time: null,
      created_at: new Date(Date.parse('2026-03-02T10:00:00Z') + made * 60_000).toISOString(),
      log: { file: 'x' },
    });
    await scans.create(record);
    return record;
  }

  /** Runs `save` for a new job and finishes it with what was kept, as the scan engine does. */
  async function scan(output: RunnerOutput, outputs = makeScanOutputs({ artifacts: { store, repo, ids }, scans, clock })) {
    const record = await job();
    const kept = await outputs.save(record, [{ target: TARGET, output }]);
    await scans.transition('acme', record.id, ['queued'], {
      status: 'succeeded',
      ...(kept.outputs.length > 0 ? { outputs: kept.outputs } : {}),
    });
    return { id: record.id, ...kept };
  }

  it('keeps the document as a ready artifact of the tenant linked to scan and target, and says first inventory', async () => {
    const first = await scan(inventory('pkg:npm/a@1.0.0', 'pkg:npm/b@2.0.0'));

    expect(first.errors).toEqual([]);
    expect(first.components).toMatchObject({ count: 2, since_scan_id: null, added: [], removed: [], added_count: 0 });
    const [output] = first.outputs;
    expect(await repo.get('acme', output.artifact_id)).toMatchObject({
      purpose: 'sbom',
      status: 'ready',
      scan_id: first.id,
      target: TARGET,
    });
    expect(await repo.get('globex', output.artifact_id)).toBeNull();
    const bytes = await store.read('acme', output.artifact_id, 1 << 20);
    expect(JSON.parse(bytes!.toString())).toMatchObject({ bomFormat: 'CycloneDX' });
  });

  it('lists what was added and removed since the previous inventory, by exact purl', async () => {
    const first = await scan(inventory('pkg:npm/a@1.0.0', 'pkg:npm/b@2.0.0'));
    const second = await scan(inventory('pkg:npm/a@1.0.1', 'pkg:npm/b@2.0.0', 'pkg:npm/c@3.0.0'));

    expect(second.components).toEqual({
      count: 3,
      since_scan_id: first.id,
      added_count: 2,
      removed_count: 1,
      added: ['pkg:npm/a@1.0.1', 'pkg:npm/c@3.0.0'],
      removed: ['pkg:npm/a@1.0.0'],
      truncated: false,
    });
  });

  it('looks past a previous scan whose document is gone (expired) to the one before', async () => {
    const first = await scan(inventory('pkg:npm/a@1.0.0'));
    const gone = await scan(inventory('pkg:npm/a@1.0.0', 'pkg:npm/b@1.0.0'));
    await store.remove('acme', gone.outputs[0].artifact_id);
    const third = await scan(inventory('pkg:npm/a@1.0.0', 'pkg:npm/c@1.0.0'));

    expect(third.components).toMatchObject({ since_scan_id: first.id, added: ['pkg:npm/c@1.0.0'], removed: [] });
  });

  it('reports a document it could not keep as an error, never as kept', async () => {
    const refusing: ArtifactStore = {
      ...store,
      write: async () => {
        throw new Error('AccessDenied');
      },
    };
    const failed = await scan(inventory('pkg:npm/a@1.0.0'), makeScanOutputs({ artifacts: { store: refusing, repo, ids }, scans, clock }));
    const nowhere = await scan(inventory('pkg:npm/a@1.0.0'), makeScanOutputs({ scans, clock }));

    expect(failed.outputs).toEqual([]);
    expect(failed.components).toBeUndefined();
    expect(failed.errors).toEqual([{ target: TARGET, message: 'AccessDenied' }]);
    expect(nowhere.errors).toEqual([{ target: TARGET, message: 'output sbom not kept: this deployment has no artifact store for scans' }]);
  });
});
