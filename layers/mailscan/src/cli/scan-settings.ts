import type { ConfigFile } from '../config/config-file.ts';
import { parseNameservers, systemNameservers, type Nameserver } from '../../../../lib/dns/nameservers.ts';
import { selectorsToProbe } from '../posture/dkim-selectors.ts';
import type { ReputationContext } from '../reputation/context.ts';
import { reputationDefaults } from '../reputation/defaults.ts';
import type { ScanArgs } from './args.ts';
import type { OptInConfigResult } from '../external/opt-in-config.ts';

/** Everything a scan needs, from flags, then MAILSCAN_* environment, then the config file, then defaults. */
export interface ScanSettings {
  nameservers: Nameserver[];
  /** The whole scan's budget (--timeout). */
  deadlineMs: number;
  dns: { timeoutMs: number; attempts: number };
  dkimSelectors: string[];
  /** null with --no-reputation: its configuration is then not even read. */
  reputation: ReputationContext['config'] | null;
  fetchTimeoutMs: number;
  allowPrivate: boolean;
  /** Vendors and settings of discover and leak; null when neither runs (nothing of theirs is read). */
  optIn: Extract<OptInConfigResult, { ok: true }> | null;
}

export type SettingsResult = { ok: true; settings: ScanSettings } | { ok: false; exit: 'usage' | 'couldNotStart'; message: string };

export const DEFAULT_SCAN_TIMEOUT_SECONDS = 60;
export const DEFAULT_DNS_TIMEOUT_MS = 2_000;
export const DEFAULT_DNS_ATTEMPTS = 3;

export async function resolveSettings(args: ScanArgs, env: Readonly<Record<string, string | undefined>>): Promise<SettingsResult> {
  let config: ConfigFile = {};
  const configPath = args.configPath ?? nonEmpty(env.MAILSCAN_CONFIG);
  if (configPath !== undefined) {
    // Imported only with a config file: its schema (some forty zod objects) is built at import,
    // which a scan without one (the service's) need not pay for.
    const { loadConfigFile } = await import('../config/config-file.ts');
    const loaded = await loadConfigFile(configPath);
    if (!loaded.ok) return { ok: false, exit: 'usage', message: loaded.message };
    config = loaded.config;
  }

  let nameservers: Nameserver[];
  const given = args.nameservers.length > 0 ? args.nameservers : nonEmpty(env.MAILSCAN_NAMESERVERS)?.split(',');
  if (given !== undefined) {
    const parsed = parseNameservers(given);
    if (parsed === null)
      return { ok: false, exit: 'usage', message: `nameservers must be IP[:PORT] or [IPv6]:PORT, got "${given.join(',')}"` };
    nameservers = parsed;
  } else {
    nameservers = systemNameservers();
    if (nameservers.length === 0)
      return { ok: false, exit: 'couldNotStart', message: 'the system has no DNS server configured; pass --nameserver' };
  }

  let reputation: ScanSettings['reputation'] = null;
  if (args.reputation) {
    // Imported here: it loads the VMC roots and X.509, which a --no-reputation scan never needs.
    const { reputationConfigFromEnv } = await import('../reputation/config-from-env.ts');
    const resolvedReputation = reputationConfigFromEnv(env, config);
    if (!resolvedReputation.ok) return { ok: false, exit: 'usage', message: resolvedReputation.message };
    reputation = resolvedReputation.config;
  }

  let optIn: ScanSettings['optIn'] = null;
  if (args.discover || args.leak) {
    const { optInConfigFromEnv } = await import('../external/opt-in-config.ts');
    const resolvedOptIn = optInConfigFromEnv(env, config);
    if (!resolvedOptIn.ok) return { ok: false, exit: 'usage', message: resolvedOptIn.message };
    optIn = resolvedOptIn;
  }

  return {
    ok: true,
    settings: {
      optIn,
      nameservers,
      deadlineMs: (args.timeoutSeconds ?? DEFAULT_SCAN_TIMEOUT_SECONDS) * 1000,
      dns: { timeoutMs: config.dns?.timeout_ms ?? DEFAULT_DNS_TIMEOUT_MS, attempts: config.dns?.attempts ?? DEFAULT_DNS_ATTEMPTS },
      dkimSelectors: selectorsToProbe(config.dkim?.selectors, args.dkimSelectors),
      fetchTimeoutMs: config.fetch?.timeout_ms ?? reputationDefaults.fetch.timeoutMs,
      allowPrivate: env.MAILSCAN_ALLOW_PRIVATE === '1',
      reputation,
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
