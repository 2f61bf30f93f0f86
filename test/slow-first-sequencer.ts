import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Vitest's order runs the projects one after the other (by name) and, within each, the files that
 * took longest last time first. With two workers that pairs the slowest files of a project with
 * each other (two Chromium suites at once, on two cores) and leaves a project's long file to end
 * the run. This keeps the groups and puts files without a recorded duration first, as Vitest
 * does, then sorts the rest by their last duration across projects, so the long files start first
 * and meet short ones. A fresh clone has no durations: Vitest's own order then stands.
 */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const duration = (spec: TestSpecification): number | undefined =>
      this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`)?.duration;
    return base
      .map((spec, index) => ({ spec, index, duration: duration(spec) }))
      .sort(
        (a, b) =>
          a.spec.project.config.sequence.groupOrder - b.spec.project.config.sequence.groupOrder ||
          Number(a.duration !== undefined) - Number(b.duration !== undefined) ||
          (b.duration ?? 0) - (a.duration ?? 0) ||
          a.index - b.index,
      )
      .map(({ spec }) => spec);
  }
}
