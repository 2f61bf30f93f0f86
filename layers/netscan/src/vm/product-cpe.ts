/**
 * The CPE names NVD files an upstream product under (its official CPE dictionary's vendor and
 * product), for the products netscan's probes name. Some products moved vendor over the years
 * (nginx to f5, redis to redislabs and back, vsftpd), so each lists every name its CVEs use.
 *
 * A distribution's build (Debian's `OpenSSH_7.4p1 Debian-10+deb9u7`, Apache's `(Ubuntu)`, MySQL's
 * `-0ubuntu0.18.04.1`) carries the distribution's backported fixes: its upstream version does not
 * say which CVEs it has, so it is never looked up by CPE (a Debian package is looked up in OSV,
 * osv-package.ts; another distribution's is reported as not looked up).
 */
import { formatCpe, parseCpe, type DetectedProduct } from '../../../../lib/nvd/cpe.ts';
import type { ServiceIdentity } from '../probe/service.ts';

const CPE_NAMES: Record<string, readonly (readonly [vendor: string, product: string])[]> = {
  OpenSSH: [['openbsd', 'openssh']],
  nginx: [
    ['f5', 'nginx'],
    ['nginx', 'nginx'],
  ],
  'Apache httpd': [['apache', 'http_server']],
  Exim: [['exim', 'exim']],
  Postfix: [['postfix', 'postfix']],
  vsftpd: [
    ['vsftpd_project', 'vsftpd'],
    ['beasts', 'vsftpd'],
  ],
  ProFTPD: [['proftpd', 'proftpd']],
  MySQL: [
    ['oracle', 'mysql'],
    ['mysql', 'mysql'],
  ],
  MariaDB: [['mariadb', 'mariadb']],
  PostgreSQL: [['postgresql', 'postgresql']],
  Redis: [
    ['redis', 'redis'],
    ['redislabs', 'redis'],
  ],
  memcached: [['memcached', 'memcached']],
  lighttpd: [['lighttpd', 'lighttpd']],
  Sendmail: [['sendmail', 'sendmail']],
  'Microsoft IIS': [['microsoft', 'internet_information_services']],
  OpenResty: [['openresty', 'openresty']],
  Elasticsearch: [['elastic', 'elasticsearch']],
  MongoDB: [['mongodb', 'mongodb']],
};

/** Names a distribution build carries in a banner, an SSH comment or a version suffix. */
const DISTRIBUTION =
  /\b(Debian|Ubuntu|Raspbian|Red Hat|CentOS|Fedora|SUSE|Amazon Linux|AlmaLinux|Rocky|FreeBSD)\b|ubuntu\d|[+~]deb\d+u\d+|\.el\d/i;

export type CpeLookup = { cpes: string[]; product: (cpe: string) => DetectedProduct } | { none: string };

/** The CPEs to ask NVD for a detected version, or why it is not looked up by CPE. */
export function cpesOf(identity: ServiceIdentity): CpeLookup {
  if (!identity.product || !identity.version) return { none: 'no product version detected' };
  const names = CPE_NAMES[identity.product];
  if (!names) return { none: `no CPE known for ${identity.product}` };
  const comment = typeof identity.details?.comment === 'string' ? identity.details.comment : '';
  const distribution = DISTRIBUTION.exec(`${comment} ${identity.banner ?? ''} ${identity.version}`);
  if (distribution) {
    return {
      none: `${identity.product} ${identity.version} is a ${distribution[1] ?? 'distribution'} build: its fixes are backported, so its upstream version does not say which CVEs it has`,
    };
  }
  // OpenSSH portable's `7.4p1` is NVD's version 7.4, update p1; other versions are taken whole.
  const split = /^(\d+(?:\.\d+)*)(p\d+)$/.exec(identity.version);
  const version = split && identity.product === 'OpenSSH' ? split[1] : identity.version;
  const update = split && identity.product === 'OpenSSH' ? split[2] : '*';
  const cpes = names.map(([vendor, product]) => formatCpe(vendor, product, version, update));
  const announced = identity.version;
  return { cpes, product: (cpe) => ({ cpe: parseCpe(cpe)!, announced }) };
}
