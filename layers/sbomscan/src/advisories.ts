/**
 * A repository's packages looked up in OSV through lib/'s batch client: each component as OSV names
 * it, and each answer as the finding's facts.
 */
import { OsvFailure, queryOsvBatch, type OsvOptions } from '../../../lib/osv/osv-batch.ts';
import type { KnownVulnerability } from '../../../lib/osv/osv-client.ts';
import type { Component, Ecosystem } from './component.ts';

export { OsvFailure };

const OSV_ECOSYSTEM: Record<Ecosystem, string> = {
  npm: 'npm',
  pypi: 'PyPI',
  cargo: 'crates.io',
  golang: 'Go',
  gem: 'RubyGems',
  composer: 'Packagist',
  maven: 'Maven',
  nuget: 'NuGet',
};

export interface Advisory extends KnownVulnerability {
  /** An OpenSSF malicious-packages record (`MAL-`). */
  malicious: boolean;
}

function osvName(component: Component): string {
  if (component.ecosystem === 'maven') return `${component.namespace}:${component.name}`;
  return component.namespace ? `${component.namespace}/${component.name}` : component.name;
}

/** Each component's advisories (same order). */
export async function lookUpAdvisories(components: readonly Component[], options: OsvOptions): Promise<Advisory[][]> {
  const answers = await queryOsvBatch(
    components.map((component) => ({
      ecosystem: OSV_ECOSYSTEM[component.ecosystem],
      name: osvName(component),
      version: component.version,
    })),
    options,
  );
  return answers.map((list) => list.map((vulnerability) => ({ ...vulnerability, malicious: vulnerability.id.startsWith('MAL-') })));
}
