/**
 * sbomscan's finding catalogue (DESIGN §18): ids and severities are the contract; `sbom.vuln.known`
 * takes its severity from the advisory's CVSS v3 score (the catalogue's is the default).
 */
import type { Rule } from '../../../lib/report.ts';

/** The kit's rule with the metadata of DESIGN §11 (references, tags, CWE, confidence). */
export type SbomRule = Rule & { references: string[]; tags: string[]; cwe?: string; confidence: 'high' | 'medium' | 'low' };

const OSV = 'https://osv.dev/';
const CYCLONEDX = 'https://cyclonedx.org/specification/overview/';

export const CATALOGUE = [
  {
    rule_id: 'sbom.vuln.known',
    severity: 'medium',
    computed_severity: true,
    title: 'Dependency with a known vulnerability',
    description:
      "A package version in the repository's lockfiles is affected by an advisory of the OSV service (severity from its CVSS v3 score).",
    remediation:
      'Upgrade the package to a fixed version (the evidence lists them), or record why it does not apply in scope.ignore or osv-scanner.toml.',
    references: [OSV, 'https://owasp.org/Top10/A06_2021-Vulnerable_and_Outdated_Components/'],
    tags: ['supply-chain', 'vulnerability'],
    cwe: 'CWE-1395',
    confidence: 'high',
  },
  {
    rule_id: 'sbom.vuln.malicious_package',
    severity: 'critical',
    title: 'Malicious package',
    description: 'A package version matches an OSV malicious-package advisory (MAL-).',
    remediation: 'Remove the package, rotate every secret the build or its machines could reach, and check what it ran.',
    references: ['https://github.com/ossf/malicious-packages', OSV],
    tags: ['supply-chain', 'malware'],
    cwe: 'CWE-506',
    confidence: 'high',
  },
  {
    rule_id: 'sbom.lockfile.missing',
    severity: 'medium',
    title: 'Manifest without a lockfile',
    description:
      'A package manifest (package.json, pyproject.toml, Cargo.toml, Gemfile, composer.json, or go.mod without go.sum) has no lockfile beside it, so every install may resolve different versions.',
    remediation:
      'Commit the lockfile the package manager writes (package-lock.json, poetry.lock, Cargo.lock, Gemfile.lock, composer.lock, go.sum).',
    references: ['https://docs.npmjs.com/cli/configuring-npm/package-lock-json', 'https://slsa.dev/spec/v1.0/requirements'],
    tags: ['supply-chain', 'reproducibility'],
    cwe: 'CWE-1357',
    confidence: 'high',
  },
  {
    rule_id: 'sbom.dependency.unpinned',
    severity: 'low',
    title: 'Unpinned dependency',
    description: 'A requirements or pom dependency is written as a range (or not at all), not as one version.',
    remediation: 'Pin the version (`name==1.2.3`, a fixed <version>), or move to a lockfile-based tool.',
    references: ['https://pip.pypa.io/en/stable/topics/repeatable-installs/'],
    tags: ['supply-chain', 'reproducibility'],
    cwe: 'CWE-1357',
    confidence: 'high',
  },
  {
    rule_id: 'sbom.dependency.non_registry_source',
    severity: 'medium',
    title: 'Dependency from outside a registry',
    description:
      'A lockfile resolves a package from a git repository, a tarball URL or a local file, which the registry neither scans nor keeps immutable.',
    remediation: 'Publish the package to a registry you control, or pin the git source to a commit and review it.',
    references: ['https://docs.npmjs.com/cli/configuring-npm/package-json#git-urls-as-dependencies'],
    tags: ['supply-chain', 'provenance'],
    cwe: 'CWE-829',
    confidence: 'high',
  },
  {
    rule_id: 'sbom.lockfile.insecure_resolution',
    severity: 'medium',
    title: 'Insecure lockfile resolution',
    description:
      'A lockfile resolves a package over plain http://, or a registry or tarball entry lacks the integrity hash its format carries.',
    remediation: 'Use an https registry and regenerate the lockfile so that every entry has its integrity hash.',
    references: ['https://docs.npmjs.com/cli/configuring-npm/package-lock-json#packages'],
    tags: ['supply-chain', 'integrity'],
    cwe: 'CWE-494',
    confidence: 'high',
  },
  {
    rule_id: 'sbom.license.denied',
    severity: 'medium',
    title: 'Denied licence',
    description: "A package's declared licence is in the scope's license_deny list.",
    remediation: 'Replace the package, or get the licence approved and remove it from license_deny.',
    references: ['https://spdx.org/licenses/'],
    tags: ['license', 'compliance'],
    confidence: 'high',
  },
  {
    rule_id: 'sbom.license.unknown',
    severity: 'info',
    title: 'Direct dependency with no known licence',
    description:
      'No licence is known for a direct dependency: its lockfile format carries none (requirements, Cargo, pnpm and yarn lockfiles) or the package declares none.',
    remediation: "Check the package's licence by hand and record it; licences are read from the lockfile only, never fetched.",
    references: ['https://spdx.org/licenses/', CYCLONEDX],
    tags: ['license', 'compliance'],
    confidence: 'medium',
  },
] as const satisfies readonly SbomRule[];

export type SbomRuleId = (typeof CATALOGUE)[number]['rule_id'];
export const RULE_IDS: SbomRuleId[] = CATALOGUE.map((rule) => rule.rule_id);
