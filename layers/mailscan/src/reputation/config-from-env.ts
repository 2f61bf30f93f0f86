import type { ReputationContext } from './context.ts';
import { reputationDefaults } from './defaults.ts';
import { errorMessage } from './check-result.ts';
import { loadBundledVmcRoots, readPemCertificates } from './vmc-roots.ts';
import { senderScoreVendor } from './sender-score.ts';
import { threatIntelVendor } from './threat-intel.ts';
import { vendorConfigFromEnv, type VendorFileConfig } from '../vendors/vendor-config.ts';

/** The reputation part of the `--config` file (structurally the CLI's ConfigFile, already validated). */
export interface ReputationFileConfig {
  dnsbl?: { ip_zones?: string[]; domain_zones?: string[] };
  trustlist?: { zones: string[] };
  senderscore?: VendorFileConfig;
  threatintel?: VendorFileConfig;
}

export type ReputationConfigResult = { ok: true; config: ReputationContext['config'] } | { ok: false; message: string };

type Env = Readonly<Record<string, string | undefined>>;

/**
 * ReputationContext['config'] from MAILSCAN_* environment, then the config file, then defaults
 * (docs/mailscan-reputation.md). Operator keys come only from the environment. A malformed value
 * is a usage error, reported without echoing any key.
 */
export function reputationConfigFromEnv(
  env: Env,
  fileConfig: ReputationFileConfig = {},
  bundledRoots: () => string[] = loadBundledVmcRoots,
): ReputationConfigResult {
  const dqsKey = nonEmpty(env.MAILSCAN_SPAMHAUS_DQS_KEY);
  // The key becomes a DNS label; anything else could redirect the lookups to another zone.
  if (dqsKey !== undefined && !/^[a-z0-9]{1,63}$/i.test(dqsKey))
    return { ok: false, message: 'MAILSCAN_SPAMHAUS_DQS_KEY must be letters and digits only' };

  const senderScore = vendorConfigFromEnv(senderScoreVendor, env, fileConfig.senderscore);
  if (!senderScore.ok) return senderScore;
  const threatIntel = vendorConfigFromEnv(threatIntelVendor, env, fileConfig.threatintel);
  if (!threatIntel.ok) return threatIntel;

  let vmcRoots: () => string[] = bundledRoots;
  const rootsPath = nonEmpty(env.MAILSCAN_VMC_ROOTS);
  try {
    // MAILSCAN_VMC_ROOTS replaces the bundled roots; it exists so tests can trust their own test
    // root, and is read now (a usage error). The bundled roots are read when a VMC is validated:
    // every scan would otherwise read five files for the few domains with a VMC.
    if (rootsPath !== undefined) {
      const roots = readPemCertificates(rootsPath);
      vmcRoots = () => roots;
    }
  } catch (error) {
    return {
      ok: false,
      message: `VMC roots${rootsPath !== undefined ? ` (MAILSCAN_VMC_ROOTS=${rootsPath})` : ''}: ${errorMessage(error)}`,
    };
  }

  return {
    ok: true,
    config: {
      dnsbl: {
        ipZones: fileConfig.dnsbl?.ip_zones ?? [...reputationDefaults.dnsbl.ipZones],
        domainZones: fileConfig.dnsbl?.domain_zones ?? [...reputationDefaults.dnsbl.domainZones],
      },
      trustlist: { zones: fileConfig.trustlist?.zones ?? [...reputationDefaults.trustlist.zones] },
      ...(dqsKey !== undefined ? { spamhausDqsKey: dqsKey } : {}),
      senderScore: senderScore.config,
      threatIntel: threatIntel.config,
      vmcRoots,
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
