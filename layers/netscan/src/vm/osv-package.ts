/**
 * Which OSV package a detected service version is, when it can be said truthfully. A query for a
 * package OSV does not index answers "no vulnerabilities", which would read as a clean result, so
 * a version without a known package is reported as not looked up, never as clean.
 *
 * - Debian's OpenSSH names its package revision and release in the SSH banner
 *   (`OpenSSH_9.2p1 Debian-2+deb12u10`): that is `openssh` `1:9.2p1-2+deb12u10` in `Debian:12`
 *   (Debian's openssh carries epoch 1).
 * - Upstream products (Redis, nginx, ...) have no OSV ecosystem of their own; an OSV-compatible
 *   service that indexes them names its ecosystem in NETSCAN_OSV_UPSTREAM_ECOSYSTEM, and the
 *   package name is the product's lowercase name (docs/netscan.md).
 */
import type { OsvPackageVersion } from '../../../../lib/osv/osv-client.ts';
import type { ServiceIdentity } from '../probe/service.ts';

const UPSTREAM_NAMES: Record<string, string> = {
  OpenSSH: 'openssh',
  Redis: 'redis',
  memcached: 'memcached',
  MongoDB: 'mongodb',
  MySQL: 'mysql',
  MariaDB: 'mariadb',
  PostgreSQL: 'postgresql',
  Elasticsearch: 'elasticsearch',
  OpenSearch: 'opensearch',
  'Docker Engine': 'docker',
  nginx: 'nginx',
  'Apache httpd': 'apache-httpd',
  vsftpd: 'vsftpd',
  ProFTPD: 'proftpd',
  Exim: 'exim',
  lighttpd: 'lighttpd',
};

/** The Debian package a banner names (OpenSSH's `Debian-10+deb9u7` comment), if it names one. */
export function debianPackageOf(identity: ServiceIdentity): OsvPackageVersion | undefined {
  const comment = typeof identity.details?.comment === 'string' ? identity.details.comment : '';
  const debian = /^Debian-([\w.~+]+?\+deb(\d+)u\d+)$/.exec(comment);
  if (identity.product !== 'OpenSSH' || !identity.version || !debian) return undefined;
  return { name: 'openssh', ecosystem: `Debian:${debian[2]}`, version: `1:${identity.version}-${debian[1]}` };
}

/** The package version to query for an identity, or the reason there is none. */
export function osvPackageOf(identity: ServiceIdentity, upstreamEcosystem: string | undefined): OsvPackageVersion | { none: string } {
  if (!identity.product || !identity.version) return { none: 'no product version detected' };
  const debian = debianPackageOf(identity);
  if (debian) return debian;
  const name = UPSTREAM_NAMES[identity.product];
  if (!name) return { none: `no OSV package known for ${identity.product}` };
  if (!upstreamEcosystem) return { none: `${identity.product} is an upstream product and NETSCAN_OSV_UPSTREAM_ECOSYSTEM is unset` };
  return { name, ecosystem: upstreamEcosystem, version: identity.version };
}
