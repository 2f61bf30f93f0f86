/**
 * `Gemfile.lock`: the `GEM` sections' `specs` (four-space lines are gems, six-space lines their
 * dependencies), `GIT` and `PATH` sections for gems from elsewhere, and `DEPENDENCIES` for the
 * direct ones. Bundler records no checksums (before 2.6's optional CHECKSUMS) and no licences.
 */
import { makeComponent, UnparseableLockfile, type Component, type ParsedFile, type SourceKind } from '../component.ts';

export function parseGemfileLock(path: string, text: string): ParsedFile {
  const components: Component[] = [];
  const direct = new Set<string>();
  const checksums = new Set<string>();
  let section = '';
  let remote: string | undefined;
  const pending: Array<{ name: string; version: string; source: SourceKind; remote?: string }> = [];
  for (const line of text.split(/\r?\n/)) {
    if (/^[A-Z]/.test(line)) {
      section = line.trim();
      remote = undefined;
      continue;
    }
    const remoteLine = /^ {2}remote: (.+)$/.exec(line);
    if (remoteLine) remote = remoteLine[1].trim();
    if (section === 'DEPENDENCIES') {
      const dep = /^ {2}([^\s!(]+)/.exec(line);
      if (dep) direct.add(dep[1]);
      continue;
    }
    if (section === 'CHECKSUMS') {
      const sum = /^ {2}(\S+) \(([^)]+)\) sha256=/.exec(line);
      if (sum) checksums.add(`${sum[1]}@${sum[2]}`);
      continue;
    }
    const spec = /^ {4}([^\s(]+) \(([^)]+)\)$/.exec(line);
    if (spec && (section === 'GEM' || section === 'GIT' || section === 'PATH')) {
      const version = spec[2].replace(/-(x86|arm|java|universal|x64|aarch64).*$/, '');
      pending.push({ name: spec[1], version, source: section === 'GEM' ? 'registry' : section === 'GIT' ? 'git' : 'file', remote });
    }
  }
  if (pending.length === 0 && !/^GEM$/m.test(text)) throw new UnparseableLockfile(path, 'no GEM section');
  const hasChecksums = /^CHECKSUMS$/m.test(text);
  for (const gem of pending) {
    components.push(
      makeComponent({
        ecosystem: 'gem',
        name: gem.name,
        version: gem.version,
        lockfile: path,
        scope: direct.has(gem.name) ? 'direct' : 'transitive',
        source: gem.source,
        resolved:
          gem.source === 'registry' && gem.remote && /^http:/.test(gem.remote)
            ? gem.remote
            : gem.source === 'registry'
              ? undefined
              : gem.remote,
        integrity: hasChecksums && gem.source === 'registry' ? (checksums.has(`${gem.name}@${gem.version}`) ? 'sha256' : null) : undefined,
      }),
    );
  }
  return { components, unpinned: [], notes: [] };
}
