import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { EngineManifest } from '../../lib/engine-manifest.ts';
import { CONFIDENCES, type Rule } from '../../lib/report.ts';
import { MANIFESTS } from '../../layers/manifests.ts';
import { README, regenerateReadme, RULE_IDS_DOC } from '../../scripts/findings-doc.ts';
import {
  folderProblems,
  idsOfRuleIdsDoc,
  manifestFieldNames,
  ruleIdProblems,
  scanTypeProblems,
  unreadFields,
} from '../../scripts/manifest-checks.ts';
import { SCAN_TYPES } from '../../shared/domain/scan-types.ts';
import { scopeSchemaOf } from '../../shared/domain/scope.ts';
import { runnerScanTypes } from '../../shared/domain/runner-types.ts';
import { ArtifactPurpose } from '../../shared/domain/artifact.ts';

const root = new URL('../../', import.meta.url).pathname;
const layers = join(root, 'layers');

/** The code that reads manifests: the service, the stack, the local runtime, the scripts and the layer build. */
function consumerSources(): string[] {
  const files = (dir: string): string[] =>
    readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
    );
  return [...['shared', 'functions', 'local', 'infra', 'scripts'].flatMap(files), 'layers/build.ts']
    .filter((file) => file !== join('scripts', 'manifest-checks.ts'))
    .map((file) => readFileSync(join(root, file), 'utf8'));
}

const rule = (rule_id: string): Rule => ({
  rule_id,
  severity: 'low',
  title: 't',
  description: 'd',
  remediation: 'r',
  tags: ['t'],
  references: ['https://example.com/'],
  confidence: 'high',
});
function fake(name: string, scanTypes: string[], ids: string[], deprecatedRuleIds?: string[]): EngineManifest {
  return { ...MANIFESTS[0], name, scanTypes, catalogue: () => ids.map(rule), ...(deprecatedRuleIds ? { deprecatedRuleIds } : {}) };
}

describe('the engine manifests', () => {
  it('cover every engine folder under layers/ (engine-kit aside), each listed once under its folder name', () => {
    expect(folderProblems(layers, MANIFESTS)).toEqual([]);
    expect(new Set(MANIFESTS.map((manifest) => manifest.name)).size).toBe(MANIFESTS.length);
  });

  it('find a folder without a manifest, a manifest not listed, and a listed engine without its folder', () => {
    const without = MANIFESTS.filter((manifest) => manifest.name !== 'tlsscan');
    expect(folderProblems(layers, without)).toEqual(['layers/tlsscan/manifest.ts is not listed in layers/manifests.ts']);
    expect(folderProblems(layers, [...MANIFESTS, fake('ghostscan', [], [])])).toEqual([
      'manifest ghostscan has no folder layers/ghostscan/',
    ]);
    // engine-kit is no engine: it has no manifest and needs none.
    expect(folderProblems(layers, MANIFESTS).join()).not.toContain('engine-kit');
  });

  it('claim each scan type at most once, and only DESIGN §4 types; every claimed type has a runner and a scope schema', () => {
    expect(scanTypeProblems(MANIFESTS, SCAN_TYPES)).toEqual([]);
    expect(scanTypeProblems([...MANIFESTS, fake('twin', ['ssl', 'nope'], [])], SCAN_TYPES)).toEqual([
      'ssl is claimed by tlsscan and twin',
      'twin claims nope, which is no scan type',
    ]);
    for (const type of runnerScanTypes()) expect(scopeSchemaOf(type), type).toBeDefined();
  });

  it('have rule ids of the form <family>.<check>, unique across engines, each family one engine’s, none dropped from docs/rule-ids.md', () => {
    expect(ruleIdProblems(MANIFESTS, idsOfRuleIdsDoc(readFileSync(RULE_IDS_DOC, 'utf8')))).toEqual([]);
  });

  it('find a colliding id, a bad id, a family spanning two engines, and a removed id not kept as deprecated', () => {
    expect(ruleIdProblems([fake('a', [], ['fam.one', 'Bad', 'x.y']), fake('b', [], ['fam.one', 'x.z'])])).toEqual([
      'a: Bad is not <family>.<check>',
      'fam.one is listed twice (a, b)',
      'family x spans a and b (x.z)',
    ]);
    expect(ruleIdProblems([fake('a', [], ['fam.one'])], ['fam.one', 'fam.two'])).toEqual([
      "fam.two was removed: keep it in its engine's deprecatedRuleIds (ids are never reused)",
    ]);
    expect(ruleIdProblems([fake('a', [], ['fam.one'], ['fam.two'])], ['fam.one', 'fam.two'])).toEqual([]);
    expect(ruleIdProblems([fake('a', [], ['fam.one'], ['fam.one'])])).toContain('a: fam.one is deprecated but still in the catalogue');
  });

  it('have every field read by a consumer (shared, functions, local, infra, scripts, the layer build)', () => {
    const fields = manifestFieldNames(readFileSync(join(root, 'lib/engine-manifest.ts'), 'utf8'));
    expect(fields).toEqual(expect.arrayContaining(['name', 'scanTypes', 'scope', 'catalogue', 'testNeeds', 'bundleBudgetKiB']));
    expect(unreadFields(fields, consumerSources())).toEqual([]);
    // The check itself: a field nobody reads, or one only a comment names, is found.
    expect(unreadFields(['name', 'neverRead'], ['manifest.name; // manifest.neverRead'])).toEqual(['neverRead']);
  });

  it('give every rule of every engine references, tags and a confidence, and a CWE only in CWE-<n> form (DESIGN §11)', () => {
    const problems = MANIFESTS.flatMap((manifest) => manifest.catalogue()).flatMap((rule) => [
      ...(rule.references.length > 0 ? [] : [`${rule.rule_id}: no references`]),
      ...rule.references
        .filter((reference) => !URL.canParse(reference) || !reference.startsWith('https://'))
        .map((reference) => `${rule.rule_id}: reference ${reference}`),
      ...(rule.tags.length > 0 && rule.tags.every((tag) => /^[a-z0-9:_-]+$/.test(tag))
        ? []
        : [`${rule.rule_id}: tags ${rule.tags.join(',')}`]),
      ...(CONFIDENCES.includes(rule.confidence) ? [] : [`${rule.rule_id}: confidence ${String(rule.confidence)}`]),
      ...(rule.cwe === undefined || /^CWE-[1-9][0-9]*$/.test(rule.cwe) ? [] : [`${rule.rule_id}: cwe ${rule.cwe}`]),
    ]);
    expect(problems).toEqual([]);
    expect(MANIFESTS.flatMap((manifest) => manifest.catalogue()).length).toBeGreaterThan(100);
  });

  it('name artifact purposes the service knows', () => {
    for (const manifest of MANIFESTS)
      for (const { purpose } of Object.values(manifest.artifactFields ?? {})) expect(ArtifactPurpose.options).toContain(purpose);
  });

  it('give the README its engine table', () => {
    const text = readFileSync(README, 'utf8');
    expect(regenerateReadme(text)).toBe(text);
  });
});
