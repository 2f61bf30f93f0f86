/**
 * vm's step: the product versions the probes detected, looked up in the configured OSV-compatible
 * service. Each package version is queried once however many ports run it. A version that has no
 * OSV package is listed as not looked up; a lookup that fails is an error; neither is "clean".
 */
import type { FindingInput, ReportBuilder } from '../../../../lib/report.ts';
import { NET_RULES } from '../catalogue.ts';
import type { ServiceIdentity } from '../probe/service.ts';
import { queryOsv, type KnownVulnerability, type OsvPackageVersion } from '../../../../lib/osv/osv-client.ts';
import { osvPackageOf } from './osv-package.ts';

export interface VersionLookup {
  findings: FindingInput[];
  /** Records the rule's check: pass, error, or skipped with why. */
  record(report: ReportBuilder): void;
}

/** Findings of this rule one report holds; past it the count is said and the rest left out. */
export const MAX_VERSION_FINDINGS = 500;

const where = (address: string, port: number) => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);

export async function lookUpVersions(
  ports: readonly { address: string; port: number; identity: ServiceIdentity }[],
  options: { osvUrl?: string; upstreamEcosystem?: string; signal: AbortSignal; fetch?: typeof fetch },
): Promise<VersionLookup> {
  const rule = NET_RULES.vulnerableVersion;
  if (!options.osvUrl) {
    return {
      findings: [],
      record: (report) => report.skip(rule, 'version lookups are not configured in this deployment'),
    };
  }
  const osvUrl = options.osvUrl;
  const notLookedUp: string[] = [];
  const queries = new Map<string, { pkg: OsvPackageVersion; ports: { address: string; port: number; identity: ServiceIdentity }[] }>();
  for (const entry of ports) {
    const pkg = osvPackageOf(entry.identity, options.upstreamEcosystem || undefined);
    if ('none' in pkg) {
      if (entry.identity.product) notLookedUp.push(`${where(entry.address, entry.port)}: ${pkg.none}`);
      continue;
    }
    const key = `${pkg.ecosystem}\0${pkg.name}\0${pkg.version}`;
    const query = queries.get(key) ?? { pkg, ports: [] };
    query.ports.push(entry);
    queries.set(key, query);
  }
  const findings: FindingInput[] = [];
  const errors: string[] = [];
  let total = 0;
  for (const { pkg, ports: running } of queries.values()) {
    let vulns: KnownVulnerability[];
    try {
      vulns = await queryOsv(osvUrl, pkg, { signal: options.signal, fetch: options.fetch });
    } catch (error) {
      errors.push(
        `the OSV lookup of ${pkg.ecosystem} ${pkg.name} ${pkg.version} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      continue;
    }
    for (const entry of running) {
      for (const vuln of vulns) {
        total += 1;
        if (findings.length >= MAX_VERSION_FINDINGS) continue;
        const at = where(entry.address, entry.port);
        // The version is what the service announces (a banner, a greeting, an answer), not one verified on the host.
        findings.push({
          severity: vuln.severity,
          title: `${entry.identity.product} ${entry.identity.version}: ${vuln.aliases.find((a) => a.startsWith('CVE-')) ?? vuln.id}`,
          detail: `${at} announces ${entry.identity.product} ${entry.identity.version} in its banner (${pkg.ecosystem} ${pkg.name} ${pkg.version}), a version affected by ${vuln.id}${vuln.summary ? `: ${vuln.summary}` : ''}`,
          evidence: {
            address: entry.address,
            port: entry.port,
            product: entry.identity.product,
            version: entry.identity.version,
            version_source: 'banner',
            package: pkg,
            ids: [vuln.id, ...vuln.aliases],
            fixed: vuln.fixed,
            severity_source: vuln.severity_source,
            ...(vuln.cvss_v3 ? { cvss_v3: vuln.cvss_v3 } : {}),
          },
          fingerprint_key: `${at}:${vuln.id}`,
          subject: `${at} ${vuln.id}`,
          locations: [`tcp:${at}`],
        });
      }
    }
  }
  const looked = queries.size - new Set(errors).size;
  return {
    findings,
    record(report) {
      if (errors.length > 0) report.error(rule, errors.join('; '));
      if (total > findings.length)
        report.error(rule, `${total} known vulnerabilities matched; the report holds the first ${MAX_VERSION_FINDINGS}`);
      const skipped = notLookedUp.length > 0 ? `; not looked up: ${notLookedUp.slice(0, 10).join('; ')}` : '';
      if (looked > 0)
        report.pass(rule, `${looked} product version${looked === 1 ? '' : 's'} looked up in ${new URL(osvUrl).origin}${skipped}`);
      else if (errors.length === 0)
        report.skip(
          rule,
          notLookedUp.length > 0 ? `no detected version has an OSV package${skipped}` : 'no product version detected on an open port',
        );
    },
  };
}
