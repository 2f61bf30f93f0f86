import { readFileSync } from 'node:fs';

// Prints vitest's JSON summary as the plain closing line CI reads: "tests: N passed, N failed, N skipped".
const results = JSON.parse(readFileSync(process.argv[2] ?? '.test-results/vitest.json', 'utf8')) as {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
};
console.log(
  `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests + results.numTodoTests} skipped`,
);
