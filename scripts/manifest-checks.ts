/**
 * What must hold of the engines' manifests (DESIGN §11, docs/manifests.md), as functions of the
 * manifests so a test can show each check failing: test/unit/manifests.test.ts runs them on
 * layers/manifests.ts and on broken copies. `npm run docs:findings` refuses to drop a rule id.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineManifest } from '../lib/engine-manifest.ts';

/** `<family>.<check>`: lower-case segments of letters, digits and `_`, at least two. */
export const RULE_ID = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$/;

/** Folders under layers/ that are not engines. */
export const NOT_ENGINES: ReadonlySet<string> = new Set(['engine-kit', 'dist', 'node_modules']);

/** Every engine folder under `layersDir` has a manifest.ts and is listed, and every listed manifest has its folder. */
export function folderProblems(layersDir: string, manifests: readonly EngineManifest[]): string[] {
  const folders = readdirSync(layersDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !NOT_ENGINES.has(entry.name) && !entry.name.startsWith('.'))
    .map((entry) => entry.name);
  const listed = new Set(manifests.map((manifest) => manifest.name));
  const problems: string[] = [];
  for (const folder of folders) {
    if (!existsSync(join(layersDir, folder, 'manifest.ts'))) problems.push(`layers/${folder}/ has no manifest.ts`);
    else if (!listed.has(folder)) problems.push(`layers/${folder}/manifest.ts is not listed in layers/manifests.ts`);
  }
  for (const name of listed) if (!folders.includes(name)) problems.push(`manifest ${name} has no folder layers/${name}/`);
  return problems;
}

/** No two engines claim a scan type, and every claimed type is one of DESIGN §4's. */
export function scanTypeProblems(manifests: readonly EngineManifest[], scanTypes: readonly string[]): string[] {
  const owner = new Map<string, string>();
  const problems: string[] = [];
  for (const manifest of manifests) {
    for (const type of manifest.scanTypes) {
      if (!scanTypes.includes(type)) problems.push(`${manifest.name} claims ${type}, which is no scan type`);
      const other = owner.get(type);
      if (other) problems.push(`${type} is claimed by ${other} and ${manifest.name}`);
      else owner.set(type, manifest.name);
    }
  }
  return problems;
}

/**
 * Rule ids (DESIGN §11): `<family>.<check>`, unique across engines, each family (the first
 * segment) one engine's, a deprecated id out of the catalogue, and every id once known (`known`,
 * the committed docs/rule-ids.md) still in a catalogue or deprecated.
 */
export function ruleIdProblems(manifests: readonly EngineManifest[], known: readonly string[] = []): string[] {
  const problems: string[] = [];
  const engineOf = new Map<string, string>();
  const familyOf = new Map<string, string>();
  for (const manifest of manifests) {
    const current = manifest.catalogue().map((rule) => rule.rule_id);
    const deprecated = manifest.deprecatedRuleIds ?? [];
    for (const id of deprecated)
      if (current.includes(id)) problems.push(`${manifest.name}: ${id} is deprecated but still in the catalogue`);
    for (const id of [...current, ...deprecated]) {
      if (!RULE_ID.test(id)) problems.push(`${manifest.name}: ${id} is not <family>.<check>`);
      const other = engineOf.get(id);
      if (other) {
        problems.push(`${id} is listed twice (${other}, ${manifest.name})`);
        continue;
      }
      engineOf.set(id, manifest.name);
      const family = id.split('.')[0] ?? id;
      const owner = familyOf.get(family);
      if (owner && owner !== manifest.name) problems.push(`family ${family} spans ${owner} and ${manifest.name} (${id})`);
      else familyOf.set(family, manifest.name);
    }
  }
  for (const id of known)
    if (!engineOf.has(id)) problems.push(`${id} was removed: keep it in its engine's deprecatedRuleIds (ids are never reused)`);
  return problems;
}

/** The rule ids a docs/rule-ids.md lists (current and deprecated). */
export function idsOfRuleIdsDoc(text: string): string[] {
  return [...text.matchAll(/^- `([^`]+)`/gm)].map((match) => match[1] ?? '');
}

/** The field names of `interface EngineManifest` in lib/engine-manifest.ts's source. */
export function manifestFieldNames(source: string): string[] {
  const start = source.indexOf('export interface EngineManifest {');
  const body = source.slice(start, source.indexOf('\n}', start));
  return [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((match) => match[1] ?? '');
}

/** Source without its comments, roughly: enough that a field named only in a comment is not "read". */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** Fields no consumer reads (as `.field`), given the consumers' sources. */
export function unreadFields(fields: readonly string[], consumers: readonly string[]): string[] {
  const code = consumers.map(withoutComments).join('\n');
  return fields.filter((field) => !new RegExp(`\\.${field}\\b`).test(code));
}
