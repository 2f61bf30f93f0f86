import type * as z from 'zod';
import type { ConfigFile } from '../config/config-file.ts';
import { CouldNotStart, InvalidInput, type PrepareInput } from '../../../engine-kit/src/cli.ts';
import { parseNameservers, systemNameservers, type Nameserver } from '../../../../lib/dns/nameservers.ts';
import { TECHNIQUE_SURFACES, type Technique } from '../adversary/technique-names.ts';
import { selectorsToProbe } from '../posture/dkim-selectors.ts';
import { reputationConfigFromEnv } from '../reputation/config-from-env.ts';
import type { ReputationContext } from '../reputation/context.ts';
import { reputationDefaults } from '../reputation/defaults.ts';
import type { EmailSecurityScopeFile } from '../scope.ts';
import type { OptInConfigResult } from '../external/opt-in-config.ts';

/** The scope as the kit's frame parsed it (--scope-json, or the flags that write its fields): artifacts as local paths. */
export type ScopeFile = z.infer<typeof EmailSecurityScopeFile>;

/** What the scope asks for, with the surfaces the techniques need turned on. */
export interface ScanAsked {
  reputation: boolean;
  discover: boolean;
  leak: boolean;
  /** DMARC aggregate report files (XML, .zip, .gz), in the order given. */
  rua: string[];
  /** One message for the header surface; null when not asked for. */
  eml: string | null;
  techniques: Technique[];
}

/** What `prepare` hands the scan: what was asked, and the settings it runs with. */
export interface PreparedScan {
  asked: ScanAsked;
  settings: ScanSettings;
}

/** Everything a scan needs, from flags, then MAILSCAN_* environment, then the config file, then defaults. */
export interface ScanSettings {
  nameservers: Nameserver[];
  dns: { timeoutMs: number; attempts: number };
  dkimSelectors: string[];
  /** null with --no-reputation: its configuration is then not even read. */
  reputation: ReputationContext['config'] | null;
  fetchTimeoutMs: number;
  allowPrivate: boolean;
  /** MAILSCAN_ALLOW_LOOPBACK=1 (local runs, tests): loopback addresses too; private networks do not imply it. */
  allowLoopback: boolean;
  /** Vendors and settings of discover and leak; null when neither runs (nothing of theirs is read). */
  optIn: Extract<OptInConfigResult, { ok: true }> | null;
}

export const DEFAULT_DNS_TIMEOUT_MS = 2_000;
export const DEFAULT_DNS_ATTEMPTS = 3;

/** The scope's surfaces: the techniques turn on what they read (and need the reputation surface). */
export function askedOf(scope: ScopeFile): ScanAsked {
  const techniques = [...new Set(scope.techniques ?? [])];
  // Every technique reads the block-list results, so it cannot run without the reputation surface.
  if (techniques.length > 0 && scope.reputation === false)
    throw new InvalidInput('techniques need the reputation surface: drop --no-reputation (reputation: false)');
  const needs = (surface: 'discover' | 'leak') => techniques.some((technique) => TECHNIQUE_SURFACES[technique][surface]);
  return {
    reputation: scope.reputation !== false,
    discover: scope.discover === true || needs('discover'),
    leak: scope.leak === true || needs('leak'),
    rua: scope.rua ?? [],
    eml: scope.header ?? null,
    techniques,
  };
}

/**
 * The kit frame's `prepare` (mailscan's definition): the settings from the --nameserver flag, then
 * MAILSCAN_* environment, then the config file (--config, else MAILSCAN_CONFIG), then defaults.
 * A setting that is not usable is a usage error (exit 2); no DNS server at all, could not start (3).
 */
export async function prepareScan(input: PrepareInput<ScopeFile>): Promise<PreparedScan> {
  const { env } = input;
  const asked = askedOf(input.scope);
  let config: ConfigFile = {};
  const configPath = input.configPath ?? nonEmpty(env.MAILSCAN_CONFIG);
  if (configPath !== undefined) {
    // Imported only with a config file: its schema (some forty zod objects) is built at import,
    // which a scan without one (the service's) need not pay for.
    const { configFileSchema, loadConfigFile } = await import('../config/config-file.ts');
    if (input.configPath !== undefined) {
      // --config: the kit's frame read the file; its object is checked against mailscan's schema.
      const parsed = configFileSchema.safeParse(input.config);
      if (!parsed.success)
        throw new InvalidInput(
          `config ${configPath}: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ')}`,
        );
      config = parsed.data;
    } else {
      const loaded = await loadConfigFile(configPath);
      if (!loaded.ok) throw new InvalidInput(loaded.message);
      config = loaded.config;
    }
  }

  let nameservers: Nameserver[];
  const flagged = input.flags.nameserver as string[] | undefined;
  const given = flagged !== undefined && flagged.length > 0 ? flagged : nonEmpty(env.MAILSCAN_NAMESERVERS)?.split(',');
  if (given !== undefined) {
    const parsed = parseNameservers(given);
    if (parsed === null) throw new InvalidInput(`nameservers must be IP[:PORT] or [IPv6]:PORT, got "${given.join(',')}"`);
    nameservers = parsed;
  } else {
    nameservers = systemNameservers();
    if (nameservers.length === 0) throw new CouldNotStart('the system has no DNS server configured; pass --nameserver');
  }

  let reputation: ScanSettings['reputation'] = null;
  if (asked.reputation) {
    const resolvedReputation = reputationConfigFromEnv(env, config);
    if (!resolvedReputation.ok) throw new InvalidInput(resolvedReputation.message);
    reputation = resolvedReputation.config;
  }

  let optIn: ScanSettings['optIn'] = null;
  if (asked.discover || asked.leak) {
    const { optInConfigFromEnv } = await import('../external/opt-in-config.ts');
    const resolvedOptIn = optInConfigFromEnv(env, config);
    if (!resolvedOptIn.ok) throw new InvalidInput(resolvedOptIn.message);
    optIn = resolvedOptIn;
  }

  return {
    asked,
    settings: {
      optIn,
      nameservers,
      dns: { timeoutMs: config.dns?.timeout_ms ?? DEFAULT_DNS_TIMEOUT_MS, attempts: config.dns?.attempts ?? DEFAULT_DNS_ATTEMPTS },
      dkimSelectors: selectorsToProbe(config.dkim?.selectors, input.scope.dkim_selectors ?? []),
      fetchTimeoutMs: config.fetch?.timeout_ms ?? reputationDefaults.fetch.timeoutMs,
      allowPrivate: env.MAILSCAN_ALLOW_PRIVATE === '1',
      allowLoopback: env.MAILSCAN_ALLOW_LOOPBACK === '1',
      reputation,
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}
