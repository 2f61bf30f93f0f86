import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';

// Cuts a bundle's source map down to the service's own sources and names them relative to the
// repository. The map is read when a stack is first formatted (shared/observability/
// bundle-stack-traces.ts), so a map that also covered zod, tldts and Powertools (about three
// quarters of each bundle) would be parsed for frames it cannot improve (docs/cold-start.md).
// Stack frames in our code point at the TypeScript sources; frames inside a library point at the
// bundle, which is where they would point without the map anyway.
// Usage (the afterBundling hook of ServiceFunction): node trim-source-map.ts <index.mjs.map> <repository root>

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const DIGIT = new Map([...BASE64].map((char, i) => [char, i]));

interface SourceMapV3 {
  version: 3;
  sources: string[];
  sourcesContent?: (string | null)[];
  names: string[];
  mappings: string;
  [key: string]: unknown;
}

function decodeSegment(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = DIGIT.get(char);
    if (digit === undefined) throw new Error(`not a base64 VLQ digit: ${char}`);
    value += (digit & 31) << shift;
    if (digit & 32) {
      shift += 5;
    } else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

function encodeValue(value: number): string {
  let vlq = value < 0 ? (-value << 1) | 1 : value << 1;
  let out = '';
  do {
    let digit = vlq & 31;
    vlq >>>= 5;
    if (vlq > 0) digit |= 32;
    out += BASE64[digit];
  } while (vlq > 0);
  return out;
}

/** True for a source that is the service's own code (not under node_modules). */
export function isOwnSource(source: string): boolean {
  return !source.includes('node_modules/');
}

/** The map with only the segments that point into sources `keep` accepts, and only those sources. */
export function trimSourceMap(map: SourceMapV3, keep: (source: string) => boolean = isOwnSource): SourceMapV3 {
  const kept = map.sources.map((source) => keep(source));
  const newIndex = new Map<number, number>();
  map.sources.forEach((_, i) => {
    if (kept[i]) newIndex.set(i, newIndex.size);
  });
  const usedNames = new Map<number, number>();
  // Absolute state while decoding; the previous written values while encoding (both VLQ-relative).
  let source = 0;
  let line = 0;
  let column = 0;
  let name = 0;
  let outSource = 0;
  let outLine = 0;
  let outColumn = 0;
  let outName = 0;
  const lines = map.mappings.split(';').map((group) => {
    let generatedColumn = 0;
    let outGeneratedColumn = 0;
    const segments: string[] = [];
    let unmapped = true;
    for (const segment of group ? group.split(',') : []) {
      const values = decodeSegment(segment);
      generatedColumn += values[0];
      if (values.length < 4) continue;
      source += values[1];
      line += values[2];
      column += values[3];
      if (values.length >= 5) name += values[4];
      const target = newIndex.get(source);
      if (target === undefined) {
        // The first dropped segment after a kept one ends the kept range: a bare column, which
        // maps to nothing, so a frame inside a library does not resolve to the code before it.
        if (!unmapped) segments.push(encodeValue(generatedColumn - outGeneratedColumn));
        if (!unmapped) outGeneratedColumn = generatedColumn;
        unmapped = true;
        continue;
      }
      unmapped = false;
      let encoded =
        encodeValue(generatedColumn - outGeneratedColumn) +
        encodeValue(target - outSource) +
        encodeValue(line - outLine) +
        encodeValue(column - outColumn);
      outGeneratedColumn = generatedColumn;
      outSource = target;
      outLine = line;
      outColumn = column;
      if (values.length >= 5) {
        if (!usedNames.has(name)) usedNames.set(name, usedNames.size);
        const nameIndex = usedNames.get(name) as number;
        encoded += encodeValue(nameIndex - outName);
        outName = nameIndex;
      }
      segments.push(encoded);
    }
    return segments.join(',');
  });
  const names: string[] = [];
  for (const [old, now] of usedNames) names[now] = map.names[old];
  return {
    ...map,
    sources: map.sources.filter((_, i) => kept[i]),
    ...(map.sourcesContent ? { sourcesContent: map.sourcesContent.filter((_, i) => kept[i]) } : {}),
    names,
    mappings: lines.join(';'),
  };
}

/**
 * The map with each source named relative to `root` (the repository) instead of to the map's
 * directory, so a mapped frame reads `shared/services/schedule-service.ts:42:7` wherever the
 * bundle was built and wherever it runs.
 */
export function rootRelativeSources(map: SourceMapV3, mapDirectory: string, root: string): SourceMapV3 {
  return { ...map, sources: map.sources.map((source) => relative(root, resolve(mapDirectory, source)).split(sep).join('/')) };
}

if (import.meta.main) {
  const [file, root] = process.argv.slice(2);
  if (!file || !root) throw new Error('usage: node trim-source-map.ts <index.mjs.map> <repository root>');
  const trimmed = trimSourceMap(JSON.parse(readFileSync(file, 'utf8')) as SourceMapV3);
  writeFileSync(file, JSON.stringify(rootRelativeSources(trimmed, dirname(file), root)));
}
