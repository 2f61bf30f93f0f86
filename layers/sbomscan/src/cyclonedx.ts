/**
 * The scan's CycloneDX 1.6 JSON document (https://cyclonedx.org/docs/1.6/json/): the repository as
 * the metadata component, one `library` component per purl, each with where it was read and how the
 * project depends on it as properties (CycloneDX has no field for direct/transitive), development
 * dependencies with `scope: excluded` when the scope includes them.
 */
import { createHash } from 'node:crypto';
import type { Component } from './component.ts';
import { SCANNER_NAME, SCANNER_VERSION } from './version.ts';

export interface BomSubject {
  repository: string;
  branch: string;
  commit: string;
  timestamp: string;
}

/** A licence as CycloneDX takes it: a single SPDX-looking id, else an expression. */
function licenceOf(value: string): Record<string, unknown> {
  return /^[A-Za-z0-9.+-]+$/.test(value) ? { license: { id: value } } : { expression: value };
}

/** A deterministic urn:uuid for the same repository, commit and component set. */
function serialNumber(subject: BomSubject, purls: readonly string[]): string {
  const hex = createHash('sha256')
    .update(`${subject.repository}\n${subject.commit}\n${purls.join('\n')}`)
    .digest('hex');
  return `urn:uuid:${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 3) | 8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** A URL without the user and password a lockfile may carry (a token in a git URL). */
function withoutUserInfo(url: string): string {
  return url.replace(/^([a-z+]+:\/\/)[^/@\s]+@/i, '$1');
}

/** One component per purl: the same package from two lockfiles keeps its first (most direct) reading. */
export function uniqueByPurl(components: readonly Component[]): Component[] {
  const rank = { direct: 0, transitive: 1, development: 2 } as const;
  const byPurl = new Map<string, Component & { lockfiles: string[] }>();
  for (const component of components) {
    const before = byPurl.get(component.purl);
    if (!before) byPurl.set(component.purl, { ...component, lockfiles: [component.lockfile] });
    else {
      if (!before.lockfiles.includes(component.lockfile)) before.lockfiles.push(component.lockfile);
      if (rank[component.scope] < rank[before.scope]) before.scope = component.scope;
      before.licenses ??= component.licenses;
    }
  }
  return [...byPurl.values()].sort((a, b) => a.purl.localeCompare(b.purl));
}

export function buildBom(subject: BomSubject, components: readonly Component[]): Record<string, unknown> {
  const unique = uniqueByPurl(components) as Array<Component & { lockfiles: string[] }>;
  return {
    bomFormat: 'CycloneDX',
    specVersion: '1.6',
    serialNumber: serialNumber(
      subject,
      unique.map((c) => c.purl),
    ),
    version: 1,
    metadata: {
      timestamp: subject.timestamp,
      tools: { components: [{ type: 'application', name: SCANNER_NAME, version: SCANNER_VERSION }] },
      component: {
        type: 'application',
        'bom-ref': subject.repository,
        name: subject.repository.replace(/^https?:\/\//, '').replace(/\.git$/, ''),
        version: subject.commit,
        externalReferences: [{ type: 'vcs', url: subject.repository }],
        properties: [
          { name: 'sbomscan:branch', value: subject.branch },
          { name: 'sbomscan:commit', value: subject.commit },
        ],
      },
    },
    components: unique.map((component) => ({
      type: 'library',
      'bom-ref': component.purl,
      ...(component.namespace ? { group: component.namespace } : {}),
      name: component.name,
      version: component.version,
      purl: component.purl,
      scope: component.scope === 'development' ? 'excluded' : 'required',
      ...(component.licenses?.length ? { licenses: component.licenses.map(licenceOf) } : {}),
      ...(component.resolved && /^(https?|git\+https?):\/\//.test(component.resolved)
        ? {
            externalReferences: [
              { type: component.source === 'git' ? 'vcs' : 'distribution', url: withoutUserInfo(component.resolved.replace(/^git\+/, '')) },
            ],
          }
        : {}),
      properties: [
        { name: 'sbomscan:dependency', value: component.scope },
        { name: 'sbomscan:source', value: component.source },
        ...component.lockfiles.map((lockfile) => ({ name: 'sbomscan:lockfile', value: lockfile })),
      ],
    })),
  };
}
