/**
 * Maven `pom.xml` (direct dependencies only: a pom does not list the transitive ones, and resolving
 * them needs the repository's parents and Maven Central, which a scan does not run) and Gradle's
 * `gradle.lockfile` (every resolved module, with the configurations that use it).
 */
import { SaxesParser } from 'saxes';
import { makeComponent, UnparseableLockfile, type Component, type ParsedFile, type UnpinnedDependency } from '../component.ts';

interface Dependency {
  groupId?: string;
  artifactId?: string;
  version?: string;
  scope?: string;
  line: number;
}

export function parsePom(path: string, text: string): ParsedFile {
  const properties = new Map<string, string>();
  const dependencies: Dependency[] = [];
  const stack: string[] = [];
  let current: Dependency | undefined;
  let textBuffer = '';
  const parser = new SaxesParser({ xmlns: false });
  parser.on('opentag', (tag) => {
    stack.push(tag.name);
    textBuffer = '';
    const context = stack.join('/');
    // project/dependencies/dependency only: dependencyManagement and plugins declare, not depend.
    if (context === 'project/dependencies/dependency') current = { line: parser.line };
  });
  parser.on('text', (value) => (textBuffer += value));
  parser.on('cdata', (value) => (textBuffer += value));
  parser.on('closetag', (tag) => {
    const context = stack.join('/');
    const value = textBuffer.trim();
    if (stack.length === 3 && stack[1] === 'properties') properties.set(tag.name, value);
    if (context === 'project/version') properties.set('project.version', value);
    if (current && stack.length === 4 && stack[2] === 'dependency' && stack[1] === 'dependencies') {
      if (tag.name === 'groupId' || tag.name === 'artifactId' || tag.name === 'version' || tag.name === 'scope') current[tag.name] = value;
    }
    if (context === 'project/dependencies/dependency' && current) {
      dependencies.push(current);
      current = undefined;
    }
    stack.pop();
    textBuffer = '';
  });
  try {
    parser.write(text).close();
  } catch (error) {
    throw new UnparseableLockfile(path, (error as Error).message.split('\n')[0]);
  }
  const expand = (value: string | undefined): string | undefined =>
    value?.replace(/\$\{([^}]+)\}/g, (whole, name: string) => properties.get(name) ?? whole);
  const components: Component[] = [];
  const unpinned: UnpinnedDependency[] = [];
  for (const dep of dependencies) {
    const group = expand(dep.groupId);
    const artifact = expand(dep.artifactId);
    if (!group || !artifact) continue;
    const version = expand(dep.version);
    const name = `${group}:${artifact}`;
    if (version === undefined || version === '') {
      // Managed by a parent or a BOM: the pom alone does not say which version.
      unpinned.push({ file: path, line: dep.line, name, spec: '(managed elsewhere)' });
      continue;
    }
    if (/[[\](),]/.test(version) || version.includes('${') || /^(LATEST|RELEASE)$/.test(version)) {
      unpinned.push({ file: path, line: dep.line, name, spec: version });
      continue;
    }
    components.push(
      makeComponent({
        ecosystem: 'maven',
        namespace: group,
        name: artifact,
        version,
        lockfile: path,
        scope: dep.scope === 'test' ? 'development' : 'direct',
        source: dep.scope === 'system' ? 'file' : 'registry',
      }),
    );
  }
  return { components, unpinned, notes: [`${path}: a pom.xml lists direct dependencies only; transitive ones are not resolved`] };
}

export function parseGradleLockfile(path: string, text: string): ParsedFile {
  const components: Component[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith('empty=')) continue;
    const match = /^([^:\s]+):([^:\s]+):([^=\s]+)=(.*)$/.exec(line);
    if (!match) throw new UnparseableLockfile(path, `line ${index + 1} is not group:artifact:version=configurations`);
    const configurations = match[4].split(',').filter(Boolean);
    const testOnly = configurations.length > 0 && configurations.every((name) => /^test|Test/.test(name));
    components.push(
      makeComponent({
        ecosystem: 'maven',
        namespace: match[1],
        name: match[2],
        version: match[3],
        lockfile: path,
        scope: testOnly ? 'development' : 'transitive',
        source: 'registry',
      }),
    );
  }
  return {
    components,
    unpinned: [],
    notes: ['gradle.lockfile does not tell direct from transitive dependencies: non-test modules are listed as transitive'],
  };
}
