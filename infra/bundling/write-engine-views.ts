import { writeFileSync } from 'node:fs';
import { engineViews } from '../../shared/domain/engine-views.ts';

// Writes each scan type's engine view (status, target kind, scope as JSON Schema) beside
// MetaFunction's bundle at build time (ServiceFunction's afterBundling hook), so the function serves
// a file instead of bundling every engine's manifest and zod's JSON Schema converter
// (docs/cold-start.md, shared/domain/engine-views.ts).
// Usage: node write-engine-views.ts <engine-views.json>

if (import.meta.main) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: node write-engine-views.ts <engine-views.json>');
  writeFileSync(file, JSON.stringify(engineViews()));
}
