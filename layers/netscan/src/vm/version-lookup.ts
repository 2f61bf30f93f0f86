/**
 * vm's step: the product versions the probes detected, looked up where each can be looked up
 * truthfully (docs/netscan.md, "vm"):
 *
 * - a Debian package the banner names → the OSV-compatible service (`NETSCAN_OSV_URL`), each record
 *   re-checked against its own ranges in Debian's version order;
 * - an upstream product with a CPE → the NVD CVE API 2.0 (`NETSCAN_NVD_URL`, `NETSCAN_NVD_KEY`),
 *   each CVE's configurations re-checked against the announced version (lib/nvd/cpe.ts);
 * - else an upstream product in `NETSCAN_OSV_UPSTREAM_ECOSYSTEM` of the OSV service.
 *
 * Each query runs once however many ports run the version. A version that cannot be looked up is
 * listed as not looked up; a lookup that fails is an error; neither is "clean".
 */
import type { FindingInput, ReportBuilder } from '../../../../lib/report.ts';
import { NET_RULES } from '../catalogue.ts';
import type { ServiceIdentity } from '../probe/service.ts';
import { queryOsv, type KnownVulnerability, type OsvPackageVersion } from '../../../../lib/osv/osv-client.ts';
import { compareDebianVersions } from '../../../../lib/osv/debian-version.ts';
import { applicability, type CpeMatch, type DetectedProduct } from '../../../../lib/nvd/cpe.ts';
import { queryNvdByCpe, type NvdCve } from '../../../../lib/nvd/nvd-client.ts';
import { debianPackageOf, osvPackageOf } from './osv-package.ts';
import { cpesOf } from './product-cpe.ts';

export interface VersionLookup {
  findings: FindingInput[];
  /** Records the rule's check: pass, error, or skipped with why. */
  record(report: ReportBuilder): void;
}

/** Findings of this rule one report holds; past it the count is said and the rest left out. */
export const MAX_VERSION_FINDINGS = 500;

type Port = { address: string; port: number; identity: ServiceIdentity };

const where = (address: string, port: number) => (address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`);
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The words of a matched range: `openssh ≤ 7.7`, `http_server 2.4.49`. */
function rangeText(match: CpeMatch): string {
  const fields = match.criteria.split(':');
  const name = fields[4] ?? match.criteria;
  const bounds = [
    match.versionStartIncluding && `≥ ${match.versionStartIncluding}`,
    match.versionStartExcluding && `> ${match.versionStartExcluding}`,
    match.versionEndIncluding && `≤ ${match.versionEndIncluding}`,
    match.versionEndExcluding && `< ${match.versionEndExcluding}`,
  ].filter(Boolean);
  return bounds.length > 0
    ? `${name} ${bounds.join(', ')}`
    : `${name} ${fields[5] ?? ''}${fields[6] && fields[6] !== '*' ? fields[6] : ''}`;
}

interface OsvQuery {
  kind: 'osv';
  pkg: OsvPackageVersion;
  debian: boolean;
  ports: Port[];
}
interface NvdQuery {
  kind: 'nvd';
  cpes: string[];
  product: (cpe: string) => DetectedProduct;
  ports: Port[];
}

export async function lookUpVersions(
  ports: readonly Port[],
  options: {
    osvUrl?: string;
    nvdUrl?: string;
    nvdKey?: string;
    upstreamEcosystem?: string;
    signal: AbortSignal;
    fetch?: typeof fetch;
  },
): Promise<VersionLookup> {
  const rule = NET_RULES.vulnerableVersion;
  const { osvUrl, nvdUrl } = options;
  if (!osvUrl && !nvdUrl) {
    return {
      findings: [],
      record: (report) => report.skip(rule, 'version lookups are not configured in this deployment'),
    };
  }
  const notLookedUp: string[] = [];
  const queries = new Map<string, OsvQuery | NvdQuery>();
  const add = (key: string, make: () => OsvQuery | NvdQuery, entry: Port) => {
    const query = queries.get(key) ?? make();
    query.ports.push(entry);
    queries.set(key, query);
  };
  for (const entry of ports) {
    const { identity } = entry;
    if (!identity.product) continue;
    const at = where(entry.address, entry.port);
    const debian = debianPackageOf(identity);
    if (debian) {
      if (osvUrl)
        add(
          `osv\0${debian.ecosystem}\0${debian.name}\0${debian.version}`,
          () => ({ kind: 'osv', pkg: debian, debian: true, ports: [] }),
          entry,
        );
      else notLookedUp.push(`${at}: the ${debian.ecosystem} package ${debian.name} ${debian.version} needs NETSCAN_OSV_URL`);
      continue;
    }
    const cpe = cpesOf(identity);
    if ('cpes' in cpe && nvdUrl) {
      const { cpes, product } = cpe;
      add(`nvd\0${cpes.join('\0')}`, () => ({ kind: 'nvd', cpes, product, ports: [] }), entry);
      continue;
    }
    if ('none' in cpe && / build: /.test(cpe.none)) {
      notLookedUp.push(`${at}: ${cpe.none}`);
      continue;
    }
    const pkg = osvPackageOf(identity, options.upstreamEcosystem || undefined);
    if (!('none' in pkg) && osvUrl) {
      add(`osv\0${pkg.ecosystem}\0${pkg.name}\0${pkg.version}`, () => ({ kind: 'osv', pkg, debian: false, ports: [] }), entry);
      continue;
    }
    const why = 'cpes' in cpe ? `${identity.product} ${identity.version} needs NETSCAN_NVD_URL` : 'none' in pkg ? pkg.none : cpe.none;
    notLookedUp.push(`${at}: ${why}`);
  }

  const findings: FindingInput[] = [];
  const errors: string[] = [];
  const notes: string[] = [];
  let total = 0;
  let looked = 0;
  const push = (finding: FindingInput) => {
    total += 1;
    if (findings.length < MAX_VERSION_FINDINGS) findings.push(finding);
  };

  for (const query of queries.values()) {
    if (query.kind === 'osv') {
      const { pkg } = query;
      const excluded: string[] = [];
      let vulns: KnownVulnerability[];
      try {
        vulns = await queryOsv(osvUrl!, pkg, {
          signal: options.signal,
          fetch: options.fetch,
          ...(query.debian ? { versionOrder: compareDebianVersions, excluded } : {}),
        });
      } catch (error) {
        errors.push(`the OSV lookup of ${pkg.ecosystem} ${pkg.name} ${pkg.version} failed: ${errorText(error)}`);
        continue;
      }
      looked += 1;
      if (excluded.length > 0)
        notes.push(
          `${excluded.length} OSV record${excluded.length === 1 ? '' : 's'} left out because their own ranges exclude ${pkg.ecosystem} ${pkg.name} ${pkg.version} (${excluded.slice(0, 5).join(', ')})`,
        );
      for (const entry of query.ports) for (const vuln of vulns) push(osvFinding(entry, pkg, vuln));
      continue;
    }
    const cves = new Map<string, { cve: NvdCve; cpe: string }>();
    try {
      for (const cpe of query.cpes) {
        for (const cve of await queryNvdByCpe(nvdUrl!, cpe, {
          apiKey: options.nvdKey || undefined,
          signal: options.signal,
          fetch: options.fetch,
        }))
          if (!cves.has(cve.id)) cves.set(cve.id, { cve, cpe });
      }
    } catch (error) {
      errors.push(`the NVD lookup of ${query.cpes.join(' and ')} failed: ${errorText(error)}`);
      continue;
    }
    looked += 1;
    const outside: string[] = [];
    const conditional: string[] = [];
    for (const { cve, cpe } of cves.values()) {
      if (cve.vulnStatus === 'Rejected') continue;
      const { applies, matched } = applicability(query.product(cpe), cve.configurations);
      if (applies === false) outside.push(cve.id);
      else if (applies === 'unknown') conditional.push(cve.id);
      else for (const entry of query.ports) push(nvdFinding(entry, cpe, cve, matched));
    }
    const announced = `${query.ports[0].identity.product} ${query.ports[0].identity.version}`;
    if (outside.length > 0)
      notes.push(
        `${outside.length} CVE${outside.length === 1 ? '' : 's'} NVD matched to ${announced} left out: their version ranges exclude it (${outside.slice(0, 5).join(', ')})`,
      );
    if (conditional.length > 0)
      notes.push(
        `${conditional.length} CVE${conditional.length === 1 ? '' : 's'} of ${announced} apply only with a platform or component the scan cannot see, not reported (${conditional.slice(0, 5).join(', ')})`,
      );
  }

  const services = [nvdUrl && `NVD at ${new URL(nvdUrl).origin}`, osvUrl && `OSV at ${new URL(osvUrl).origin}`].filter(Boolean).join(', ');
  return {
    findings,
    record(report) {
      if (errors.length > 0) report.error(rule, errors.join('; '));
      if (total > findings.length)
        report.error(rule, `${total} known vulnerabilities matched; the report holds the first ${MAX_VERSION_FINDINGS}`);
      const tail = [...notes, ...(notLookedUp.length > 0 ? [`not looked up: ${notLookedUp.slice(0, 10).join('; ')}`] : [])];
      const more = tail.length > 0 ? `; ${tail.join('; ')}` : '';
      if (looked > 0) report.pass(rule, `${looked} product version${looked === 1 ? '' : 's'} looked up (${services})${more}`);
      else if (errors.length === 0)
        report.skip(
          rule,
          notLookedUp.length > 0 ? `no detected version could be looked up${more}` : 'no product version detected on an open port',
        );
    },
  };
}

function osvFinding(entry: Port, pkg: OsvPackageVersion, vuln: KnownVulnerability): FindingInput {
  const at = where(entry.address, entry.port);
  const { product, version } = entry.identity;
  // The version is what the service announces (a banner, a greeting, an answer), not one verified on the host.
  return {
    severity: vuln.severity,
    title: `${product} ${version}: ${vuln.aliases.find((a) => a.startsWith('CVE-')) ?? vuln.id}`,
    detail: `${at} announces ${product} ${version} in its banner (${pkg.ecosystem} ${pkg.name} ${pkg.version}), a version affected by ${vuln.id}${vuln.summary ? `: ${vuln.summary}` : ''}`,
    evidence: {
      address: entry.address,
      port: entry.port,
      product: product ?? '',
      version: version ?? '',
      version_source: 'banner',
      source: 'osv',
      package: pkg,
      ids: [vuln.id, ...vuln.aliases],
      fixed: vuln.fixed,
      severity_source: vuln.severity_source,
      ...(vuln.cvss_v3 ? { cvss_v3: vuln.cvss_v3 } : {}),
    },
    fingerprint_key: `${at}:${vuln.id}`,
    subject: `${at} ${vuln.id}`,
    locations: [`tcp:${at}`],
  };
}

function nvdFinding(entry: Port, cpe: string, cve: NvdCve, matched: CpeMatch[]): FindingInput {
  const at = where(entry.address, entry.port);
  const { product, version } = entry.identity;
  const ranges = [...new Set(matched.map(rangeText))];
  return {
    severity: cve.severity,
    title: `${product} ${version}: ${cve.id}`,
    detail: `${at} announces ${product} ${version} in its banner, within ${ranges.join('; ')}, which NVD lists as affected by ${cve.id}${cve.description ? `: ${cve.description}` : ''}`,
    evidence: {
      address: entry.address,
      port: entry.port,
      product: product ?? '',
      version: version ?? '',
      version_source: 'banner',
      source: 'nvd',
      cpe,
      ids: [cve.id],
      affected: matched.map(({ vulnerable: _vulnerable, ...range }) => range),
      fixed: [...new Set(matched.map((m) => m.versionEndExcluding).filter((v): v is string => v !== undefined))],
      severity_source: cve.severity_source,
      ...(cve.cvss_v3 ? { cvss_v3: cve.cvss_v3 } : {}),
    },
    fingerprint_key: `${at}:${cve.id}`,
    subject: `${at} ${cve.id}`,
    locations: [`tcp:${at}`],
  };
}
