import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ArtifactStore } from '../../ports/artifact-store.ts';
import type { RunnerInput, RunnerResult, ScanRunner } from '../../ports/scan-runner.ts';

/**
 * Wraps a runner so that the scope's artifacts (scope.rua, scope.header) are fetched into a
 * temporary folder of this run, passed as `artifactPaths`, and removed afterwards whatever
 * happens. The store is asked with the job's tenant, so a scope cannot reach another tenant's
 * object whatever id it holds.
 */
export function withArtifacts(runner: ScanRunner, store: ArtifactStore, baseDir: string = tmpdir()): ScanRunner {
  return {
    name: runner.name,
    async run(input: RunnerInput): Promise<RunnerResult> {
      const rua = Array.isArray(input.scope.rua) ? (input.scope.rua as string[]) : [];
      const header = typeof input.scope.header === 'string' ? input.scope.header : null;
      if (rua.length === 0 && header === null) return runner.run(input);
      const dir = await mkdtemp(join(baseDir, 'scan-artifacts-'));
      try {
        const fetchOne = async (id: string, name: string) => {
          const path = join(dir, name);
          try {
            await store.fetchTo(input.tenant, id, path);
          } catch (error) {
            throw new Error(`artifact ${id} could not be fetched: ${(error as Error).message}`);
          }
          return path;
        };
        const ruaPaths = await Promise.all(rua.map((id, index) => fetchOne(id, `rua-${index}-${id}`)));
        const headerPath = header === null ? null : await fetchOne(header, `eml-${header}`);
        input.logger.info('artifacts fetched', { rua: rua.length, header: header !== null });
        return await runner.run({ ...input, artifactPaths: { rua: ruaPaths, header: headerPath } });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  };
}
