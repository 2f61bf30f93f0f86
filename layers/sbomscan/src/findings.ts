/**
 * The §18 rules over an inventory: what each check examined, what it found, and what stopped it.
 * Every rule reads the same inventory; the vulnerability rules also need the OSV answer.
 */
import { parse as parseToml } from 'smol-toml';
import type { Component } from './component.ts';
import type { Inventory } from './inventory.ts';
import type { Advisory } from './advisories.ts';
import type { SbomScope } from './scope.ts';
import { uniqueByPurl } from './cyclonedx.ts';

export interface ReportSink {
  pass(ruleId: string, detail?: string): unknown;
  fail(
    ruleId: string,
    finding: {
      detail: string;
      evidence: Record<string, unknown>;
      fingerprint_key: string;
      subject?: string;
      locations?: string[];
      severity?: 'critical' | 'high' | 'medium' | 'low' | 'info';
      title?: string;
    },
  ): unknown;
  error(ruleIds: string | readonly string[], message: string): unknown;
  skip(ruleIds: string | readonly string[], why: string): unknown;
}

export const LOCKFILE_RULES = [
  'sbom.vuln.known',
  'sbom.vuln.malicious_package',
  'sbom.dependency.non_registry_source',
  'sbom.lockfile.insecure_resolution',
  'sbom.license.denied',
  'sbom.license.unknown',
] as const;

export interface IgnoreEntry {
  id: string;
  reason: string;
  until?: string;
  from: 'scope' | 'osv-scanner.toml';
}

/** `[[IgnoredVulns]]` of an osv-scanner.toml (id, ignoreUntil, reason). */
export function ignoresFromOsvScannerToml(text: string): IgnoreEntry[] {
  const doc = parseToml(text) as { IgnoredVulns?: Array<{ id?: unknown; reason?: unknown; ignoreUntil?: unknown }> };
  return (doc.IgnoredVulns ?? [])
    .filter((entry) => typeof entry.id === 'string')
    .map((entry) => ({
      id: entry.id as string,
      reason: typeof entry.reason === 'string' ? entry.reason : '',
      until:
        entry.ignoreUntil instanceof Date
          ? entry.ignoreUntil.toISOString().slice(0, 10)
          : typeof entry.ignoreUntil === 'string'
            ? entry.ignoreUntil.slice(0, 10)
            : undefined,
      from: 'osv-scanner.toml' as const,
    }));
}

/** A URL as it may be reported: user info (a token in a git URL) masked. */
export function safeUrl(value: string | undefined): string | undefined {
  return value?.replace(/^([a-z+]+:\/\/)[^/@\s]+@/i, '$1***@').slice(0, 500);
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** Licence ids named by an SPDX expression ("MIT OR Apache-2.0", "(GPL-2.0-only WITH Classpath-exception-2.0)"). */
function licenceIds(expression: string): string[] {
  return expression
    .replace(/[()]/g, ' ')
    .split(/\s+(?:OR|AND)\s+/i)
    .map((part) => part.split(/\s+WITH\s+/i)[0].trim())
    .filter(Boolean);
}

/**
 * Where a finding was seen, in the repository coverage's location form (lib/report.ts): the branch's
 * head and the file. A development dependency's location ends in `#dev`, which a scan without
 * include_dev lists among the paths it did not read, so it never resolves what it left out.
 */
export function locationOf(ref: string, path: string, development = false): string {
  return `git:${ref}:head:${path}${development ? DEV_SUFFIX : ''}`;
}
export const DEV_SUFFIX = '#dev';
/** The globs a scan without include_dev adds to its coverage's paths_ignored. */
export const DEV_GLOBS = [`*${DEV_SUFFIX}`, `**/*${DEV_SUFFIX}`];

export interface RuleInputs {
  /** The branch read (the coverage's ref). */
  ref: string;
  inventory: Inventory;
  /** The components in the SBOM (development ones only with include_dev). */
  components: Component[];
  scope: SbomScope;
  /** Components whose advisories were looked up, with them; undefined when the lookup failed. */
  advisories?: Advisory[][];
  advisoryError?: string;
  ignores: IgnoreEntry[];
  today: string;
}

export function recordFindings(report: ReportSink, inputs: RuleInputs): void {
  const { inventory, components, scope } = inputs;
  const read = inventory.read.length;
  const readDetail = `${plural(read, 'lockfile')} and manifests read (${inventory.read.slice(0, 20).join(', ')}${read > 20 ? ', …' : ''}), ${plural(components.length, 'package')}`;
  const failed = inventory.failures.map((failure) => failure.message);
  const failureNote = failed.length > 0 ? `; ${plural(failed.length, 'lockfile')} unreadable, its packages unknown` : '';

  // Missing lockfiles and unpinned ranges come from the manifests themselves, not from lockfile contents.
  for (const missing of inventory.missing) {
    report.fail('sbom.lockfile.missing', {
      detail: `${missing.manifest} has no lockfile beside it (expected ${missing.expected.join(' or ')}).`,
      evidence: { manifest: missing.manifest, expected: missing.expected },
      fingerprint_key: missing.manifest,
      subject: missing.manifest,
      locations: [locationOf(inputs.ref, missing.manifest)],
    });
  }
  report.pass(
    'sbom.lockfile.missing',
    `every manifest of ${plural(inventory.read.length + inventory.missing.length, 'file')} has its lockfile`,
  );
  for (const dep of inventory.unpinned) {
    report.fail('sbom.dependency.unpinned', {
      detail: `${dep.file} line ${dep.line}: ${dep.name} is ${dep.spec}, not one version.`,
      evidence: { path: dep.file, line: dep.line, package: dep.name, spec: dep.spec },
      fingerprint_key: `${dep.file}|${dep.name}`,
      subject: `${dep.file}:${dep.line} ${dep.name}`,
      locations: [locationOf(inputs.ref, dep.file)],
    });
  }
  report.pass('sbom.dependency.unpinned', `every requirements and pom dependency of ${readDetail} is pinned`);

  if (failed.length > 0) report.error([...LOCKFILE_RULES], failed.join('; '));

  for (const component of components) {
    const where = { purl: component.purl, path: component.lockfile, dependency: component.scope };
    const here = locationOf(inputs.ref, component.lockfile, component.scope === 'development');
    if (component.source !== 'registry') {
      report.fail('sbom.dependency.non_registry_source', {
        detail: `${component.purl} in ${component.lockfile} comes from ${component.source === 'git' ? 'a git repository' : component.source === 'file' ? 'a local path' : 'a tarball URL'}${component.resolved ? ` (${safeUrl(component.resolved)})` : ''}.`,
        evidence: { ...where, source: component.source, resolved: safeUrl(component.resolved) },
        fingerprint_key: `${component.lockfile}|${component.purl}`,
        subject: component.purl,
        locations: [here],
      });
    }
    const http = component.resolved !== undefined && /^(git\+)?http:\/\//i.test(component.resolved);
    if (http || component.integrity === null) {
      report.fail('sbom.lockfile.insecure_resolution', {
        detail: http
          ? `${component.purl} in ${component.lockfile} is resolved over plain http (${safeUrl(component.resolved)}).`
          : `${component.purl} in ${component.lockfile} has no integrity hash, which its lockfile format carries.`,
        evidence: { ...where, resolved: safeUrl(component.resolved), problem: http ? 'http' : 'no_integrity' },
        fingerprint_key: `${component.lockfile}|${component.purl}|${http ? 'http' : 'integrity'}`,
        subject: component.purl,
        locations: [here],
      });
    }
    const deny = new Set((scope.license_deny ?? []).map((id) => id.toLowerCase()));
    for (const licence of component.licenses ?? []) {
      const denied = licenceIds(licence).filter((id) => deny.has(id.toLowerCase()));
      // An OR expression is denied only when every choice is.
      const isOr = /\sOR\s/i.test(licence);
      if (denied.length > 0 && (!isOr || denied.length === licenceIds(licence).length)) {
        report.fail('sbom.license.denied', {
          detail: `${component.purl} is licensed ${licence}, and ${denied.join(', ')} is in license_deny.`,
          evidence: { ...where, license: licence, denied },
          fingerprint_key: `${component.purl}|${licence}`,
          subject: component.purl,
          locations: [here],
        });
      }
    }
    if (component.scope === 'direct' && !component.licenses?.length) {
      report.fail('sbom.license.unknown', {
        detail: `No licence is known for the direct dependency ${component.purl} (${component.lockfile} does not record one).`,
        evidence: where,
        fingerprint_key: component.purl,
        subject: component.purl,
        locations: [here],
      });
    }
  }
  report.pass('sbom.dependency.non_registry_source', `${readDetail}: every one from a registry${failureNote}`);
  report.pass('sbom.lockfile.insecure_resolution', `${readDetail}: every one over https with its integrity hash${failureNote}`);
  if ((scope.license_deny ?? []).length === 0) report.skip('sbom.license.denied', 'no license_deny list in the scope');
  else report.pass('sbom.license.denied', `${readDetail}: none under ${(scope.license_deny ?? []).join(', ')}${failureNote}`);
  report.pass('sbom.license.unknown', `${readDetail}: every direct dependency declares a licence${failureNote}`);

  if (inputs.advisories === undefined) {
    report.error(['sbom.vuln.known', 'sbom.vuln.malicious_package'], inputs.advisoryError ?? 'the OSV lookup did not run');
    return;
  }
  const ignoredFor = (advisory: Advisory): IgnoreEntry | undefined =>
    inputs.ignores.find(
      (entry) =>
        (entry.id === advisory.id || advisory.aliases.includes(entry.id)) && (entry.until === undefined || entry.until >= inputs.today),
    );
  const suppressed: string[] = [];
  inputs.advisories.forEach((advisories, index) => {
    const component = components[index];
    for (const advisory of advisories) {
      const ignored = ignoredFor(advisory);
      if (ignored) {
        suppressed.push(`${advisory.id} on ${component.purl} (${ignored.from}: ${ignored.reason || 'no reason given'})`);
        continue;
      }
      const evidence = {
        purl: component.purl,
        path: component.lockfile,
        dependency: component.scope,
        advisory: advisory.id,
        aliases: advisory.aliases,
        fixed: advisory.fixed,
        summary: advisory.summary,
        severity_source: advisory.severity_source,
        ...(advisory.cvss_v3 ? { cvss_v3: advisory.cvss_v3 } : {}),
      };
      if (advisory.malicious) {
        report.fail('sbom.vuln.malicious_package', {
          detail: `${component.purl} (${component.lockfile}) matches the malicious-package advisory ${advisory.id}${advisory.summary ? `: ${advisory.summary}` : ''}.`,
          evidence,
          fingerprint_key: `${component.purl}|${advisory.id}`,
          subject: `${component.purl} ${advisory.id}`,
          locations: [locationOf(inputs.ref, component.lockfile, component.scope === 'development')],
        });
      } else {
        report.fail('sbom.vuln.known', {
          severity: advisory.severity,
          title: `${component.name} ${component.version}: ${advisory.id}`,
          detail: `${component.purl} (${component.lockfile}, ${component.scope}) is affected by ${advisory.id}${advisory.aliases.length ? ` (${advisory.aliases.slice(0, 3).join(', ')})` : ''}${advisory.fixed.length ? `; fixed in ${advisory.fixed.join(', ')}` : '; no fixed version yet'}.`,
          evidence,
          fingerprint_key: `${component.purl}|${advisory.id}`,
          subject: `${component.purl} ${advisory.id}`,
          locations: [locationOf(inputs.ref, component.lockfile, component.scope === 'development')],
        });
      }
    }
  });
  const ignoredNote = suppressed.length > 0 ? `; ignored: ${suppressed.slice(0, 20).join('; ')}` : '';
  report.pass('sbom.vuln.known', `${plural(components.length, 'package')} looked up in OSV${ignoredNote}${failureNote}`);
  report.pass('sbom.vuln.malicious_package', `${plural(components.length, 'package')} looked up in OSV${failureNote}`);
}

export { uniqueByPurl };
