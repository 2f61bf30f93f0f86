/**
 * Where `vitest run`'s time goes, from its JSON report (CI writes .test-results/vitest.json):
 * per project and per file, each file's share of the run's wall time.
 *
 *   npx vitest run --reporter=default --reporter=json --outputFile.json=.test-results/vitest.json
 *   npx tsx scripts/test-durations.ts [.test-results/vitest.json] [--top 30]
 *
 * A file's time is its tests (the report's start to end) plus what its worker spent before its
 * first test: forking, importing the file's modules, collecting, and its beforeAll hooks. The report does not say
 * which worker ran a file, so each file is given the worker that freed up last before it started,
 * of as many workers as ever ran at once; with one worker that is exact. The machine is shared, so
 * compare shares of the total between runs, not seconds.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { TEST_PROJECTS } from '../vitest.config.ts';

interface FileResult {
  name: string;
  startTime: number;
  endTime: number;
  assertionResults: unknown[];
}

const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '30' } }, allowPositionals: true });
const report = JSON.parse(readFileSync(positionals[0] ?? '.test-results/vitest.json', 'utf8')) as {
  startTime: number;
  testResults: FileResult[];
};

/** The project whose include globs match the file (directory prefixes: every glob is `<dir>/**\/*.test.ts`). */
function projectOf(file: string): string {
  for (const [name, globs] of Object.entries(TEST_PROJECTS)) {
    if ((globs as readonly string[]).some((glob) => file.startsWith(glob.slice(0, glob.indexOf('**'))))) return name;
  }
  return '?';
}

const files = [...report.testResults].sort((a, b) => a.startTime - b.startTime);
// Workers: the most files that ever ran at once.
let workers = 1;
for (const file of files)
  workers = Math.max(workers, files.filter((other) => other.startTime <= file.startTime && other.endTime > file.startTime).length);
const freeAt: number[] = Array.from({ length: workers }, () => report.startTime);

const rows = files.map((file) => {
  const ready = freeAt.map((time, index) => ({ time, index })).filter(({ time }) => time <= file.startTime);
  const worker =
    ready.length > 0
      ? ready.reduce((a, b) => (b.time > a.time ? b : a))
      : { time: file.startTime, index: freeAt.indexOf(Math.min(...freeAt)) };
  freeAt[worker.index] = file.endTime;
  const name = relative(process.cwd(), file.name);
  return {
    name,
    project: projectOf(name),
    tests: file.assertionResults.length,
    before: (file.startTime - worker.time) / 1000,
    run: (file.endTime - file.startTime) / 1000,
  };
});
const wall = (Math.max(...files.map((file) => file.endTime)) - report.startTime) / 1000;
const busy = rows.reduce((sum, row) => sum + row.before + row.run, 0);
const pct = (seconds: number) => `${((100 * seconds) / busy).toFixed(1)}%`;

console.log(
  `wall ${wall.toFixed(0)} s, ${workers} worker(s), ${rows.length} files; worker time ${busy.toFixed(0)} s (shares below are of it)\n`,
);
console.log('project       files  tests        setup s        tests s   total s  share');
const projects = new Map<string, { files: number; tests: number; before: number; run: number }>();
for (const row of rows) {
  const p = projects.get(row.project) ?? { files: 0, tests: 0, before: 0, run: 0 };
  projects.set(row.project, { files: p.files + 1, tests: p.tests + row.tests, before: p.before + row.before, run: p.run + row.run });
}
for (const [name, p] of [...projects].sort((a, b) => b[1].before + b[1].run - (a[1].before + a[1].run))) {
  console.log(
    `${name.padEnd(12)} ${String(p.files).padStart(6)} ${String(p.tests).padStart(6)} ${p.before.toFixed(1).padStart(14)} ${p.run.toFixed(1).padStart(14)} ${(p.before + p.run).toFixed(1).padStart(9)}  ${pct(p.before + p.run)}`,
  );
}
console.log(`\nslowest files (setup: fork, imports, beforeAll; tests):`);
for (const row of [...rows].sort((a, b) => b.before + b.run - (a.before + a.run)).slice(0, Number(values.top))) {
  console.log(
    `${(row.before + row.run).toFixed(1).padStart(7)} s ${pct(row.before + row.run).padStart(6)}  (${row.before.toFixed(1)}, ${row.run.toFixed(1)})  ${row.name}`,
  );
}
