import { loadConfigFile, type ConfigFile } from '../config/config-file.ts';
import { parseNameservers, systemNameservers, type Nameserver } from '../dns/nameservers.ts';
import { selectorsToProbe } from '../posture/dkim-selectors.ts';
import type { ReputationContext } from '../reputation/context.ts';
import { reputationDefaults } from '../reputation/defaults.ts';
import type { ScanArgs } from './args.ts';

/** Everything a scan needs, from flags, then MAILSCAN_* environment, then the config file, then defaults. */
export interface ScanSettings {
  nameservers: Nameserver[];
  /** The whole scan's budget (--timeout). */
  deadlineMs: number;
  dns: { timeoutMs: number; attempts: number };
  dkimSelectors: string[];
  reputation: ReputationContext['config'];
  fetchTimeoutMs: number;
  allowPrivate: boolean;
}

export type SettingsResult = { ok: true; settings: ScanSettings } | { ok: false; exit: 'usage' | 'couldNotStart'; message: string };

export const DEFAULT_SCAN_TIMEOUT_SECONDS = 60;
export const DEFAULT_DNS_TIMEOUT_MS = 2_000;
export const DEFAULT_DNS_ATTEMPTS = 3;

export async function resolveSettings(args: ScanArgs, env: Readonly<Record<string, string | undefined>>, vmcRoots: string[]): Promise<SettingsResult> {
  let config: ConfigFile = {};
  const configPath = args.configPath ?? nonEmpty(env.MAILSCAN_CONFIG);
  if (configPath !== undefined) {
    const loaded = await loadConfigFile(configPath);
    if (!loaded.ok) return { ok: false, exit: 'usage', message: loaded.message };
    config = loaded.config;
  }

  let nameservers: Nameserver[];
  const given = args.nameservers.length > 0 ? args.nameservers : nonEmpty(env.MAILSCAN_NAMESERVERS)?.split(',');
  if (given !== undefined) {
    const parsed = parseNameservers(given);
    if (parsed === null) return { ok: false, exit: 'usage', message: `nameservers must be IP[:PORT] or [IPv6]:PORT, got "${given.join(',')}"` };
    nameservers = parsed;
  } else {
    nameservers = systemNameservers();
    if (nameservers.length === 0) return { ok: false, exit: 'couldNotStart', message: 'the system has no DNS server configured; pass --nameserver' };
  }

  const defaults = reputationDefaults;
  return {
    ok: true,
    settings: {
      nameservers,
      deadlineMs: (args.timeoutSeconds ?? DEFAULT_SCAN_TIMEOUT_SECONDS) * 1000,
      dns: { timeoutMs: config.dns?.timeout_ms ?? DEFAULT_DNS_TIMEOUT_MS, attempts: config.dns?.attempts ?? DEFAULT_DNS_ATTEMPTS },
      dkimSelectors: selectorsToProbe(config.dkim?.selectors, args.dkimSelectors),
      fetchTimeoutMs: config.fetch?.timeout_ms ?? defaults.fetch.timeoutMs,
      allowPrivate: env.MAILSCAN_ALLOW_PRIVATE === '1',
      reputation: {
        dnsbl: {
          ipZones: config.dnsbl?.ip_zones ?? [...defaults.dnsbl.ipZones],
          domainZones: config.dnsbl?.domain_zones ?? [...defaults.dnsbl.domainZones],
        },
        trustlist: { zones: config.trustlist?.zones ?? [...defaults.trustlist.zones] },
        ...(nonEmpty(env.MAILSCAN_SPAMHAUS_DQS_KEY) ? { spamhausDqsKey: env.MAILSCAN_SPAMHAUS_DQS_KEY } : {}),
        senderScore: withKey({ endpoint: config.senderscore?.endpoint ?? defaults.senderScore.endpoint, timeoutMs: config.senderscore?.timeout_ms ?? defaults.senderScore.timeoutMs }, env.MAILSCAN_SENDERSCORE_KEY),
        threatIntel: withKey({ endpoint: config.threatintel?.endpoint ?? defaults.threatIntel.endpoint, timeoutMs: config.threatintel?.timeout_ms ?? defaults.threatIntel.timeoutMs }, env.MAILSCAN_THREATINTEL_KEY),
        vmcRoots,
      },
    },
  };
}

function withKey<T extends object>(service: T, key: string | undefined): T & { key?: string } {
  return nonEmpty(key) === undefined ? service : { ...service, key };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
