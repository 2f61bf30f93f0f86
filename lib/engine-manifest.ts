/**
 * The shape of an engine's manifest (DESIGN §11): `layers/<engine>/manifest.ts` exports one
 * `EngineManifest` as its default export, and `layers/manifests.ts` lists them. Every consumer (the
 * build, the runners, scope validation, the rule-id registry, the generated docs, the bundle
 * budgets, CI's package list, the README's engine table, the stack's dispatch functions and the
 * UI's scope form) iterates that list, so adding an engine is its folder and one line.
 *
 * A manifest is data: it may import its engine's scope schema and catalogue (leaf modules), never
 * the engine's scanning code, because the API functions bundle every manifest.
 */
import type * as z from 'zod';
import type { Rule } from './report.ts';

/** What a scan type's target is (DESIGN §4); the service validates and normalises it by kind. */
export type TargetKind =
  | 'domain' // email_security, m365
  | 'host_port' // ssl: a host name or IP with an optional port
  | 'network' // vm, vapt: an IP, CIDR or host name
  | 'repository' // secret_scan, sbom: a repository URL
  | 'http_url' // dast, ai_red_team: an http(s) URL
  | 'host_port_or_url' // vdi (host[:port]); medical (also an http(s) URL for FHIR / DICOMweb)
  | 'credential_alias'; // nhi: an alias of the tenant's vault (§16)

/** DESIGN §11 resource classes: standard 1 GB / 5 min / 512 MB tmp; long 3 GB / 14 min / 4 GB tmp. */
export type ResourceClass = 'standard' | 'long';

/** DESIGN §16 credential kinds. */
export type CredentialKind =
  'git_token' | 'http_header' | 'aws_access_key' | 'github_token' | 'gitlab_token' | 'slack_token' | 'llm_api_key';

/** What the engine's tests need on the machine; CI installs these and fails when one is missing. */
export interface TestNeeds {
  /** Debian packages (reference tools and real servers), installed by `.ci/run` as root. */
  debian: readonly string[];
  /** Executables (names on PATH or absolute paths) that must exist once the packages are in. */
  binaries: readonly string[];
  /** Python modules the tests import through the machine's /usr/bin/python3 (e.g. `spf`, `dkim`). */
  python?: readonly string[];
  /**
   * npm reference tools (`name@version`), installed by `npm run reference-tools` into
   * `.reference-tools/` beside the project, not as devDependencies: their optional per-platform
   * packages are missing from the registry copy, which would break `npm ci` (docs/reference-tools.md).
   */
  npm?: readonly string[];
}

export interface EngineManifest {
  /** The executable's name: /opt/bin/<name> in the layer; also the folder under layers/. */
  name: string;
  /** The scan types (DESIGN §4 wire values) it runs; no two manifests claim one. */
  scanTypes: readonly string[];
  /** The prefix of its settings (`WEBSCAN_`): the runner passes `<PREFIX>*` variables on. */
  settingsPrefix: string;
  /** `beta` until its reference comparisons hold, then `ga`; shown by the API and the UI. */
  status: 'beta' | 'ga';
  targetKind: TargetKind;
  /** The scope's schema, the one the API and the CLI's --scope-json both parse (strict). */
  scope: () => z.ZodType;
  /** The finding catalogue (`<engine> rules`), rule ids `<family>.<check>`. */
  catalogue: () => readonly Rule[];
  /** Rule ids this engine once had; kept listed, never reused. */
  deprecatedRuleIds?: readonly string[];
  resourceClass: ResourceClass;
  /** Memory one target's scan may use, in MB: the dispatch admits a job's targets by it. */
  memoryMbPerTarget: number;
  /**
   * The least time one target's scan can take under `scope`, when the engine can say it from the
   * scope alone (netscan: addresses × ports ÷ rate), with that arithmetic in words. A job whose
   * target cannot finish inside its class's deadline is refused at create (DESIGN §11). `scope` is
   * as sent (defaults not applied); an unreadable one returns null (the scope check reports it).
   */
  minimumSeconds?: (scope: Record<string, unknown>, target: string) => { seconds: number; arithmetic: string } | null;
  /** The credential kinds `scope.credential` may name for this engine (§16); none when absent. */
  credentialKinds?: readonly CredentialKind[];
  /** Scope fields that name artifacts, with the purpose each must have (mailscan: rua, header). */
  artifactFields?: Readonly<Record<string, { purpose: string; many: boolean }>>;
  /**
   * Documents the report carries under `outputs` (sbomscan: `sbom`, its CycloneDX document): the
   * service stores each as an artifact of `purpose` of the scan's tenant, linked to the scan; an
   * output the manifest does not declare is dropped (docs/engine-contract.md).
   */
  outputs?: Readonly<Record<string, { purpose: string; contentType: string }>>;
  /** Report fields copied into the ScanJob's summary (mailscan: score, grade). */
  summaryMetrics?: readonly string[];
  /** The CLI's entry, relative to the engine folder (`src/bin/<name>.ts`). */
  entry: string;
  /**
   * A build of its own, relative to the engine folder: a module whose `build(outfile)` builds the
   * engine instead of the kit's `buildEngine` (mailscan: its VMC roots and start-up snapshot). A
   * path, not a function, so the API functions that bundle the manifests never bundle esbuild.
   */
  build?: string;
  /**
   * The build also makes a start-up snapshot (`snapshots/<name>.blob` and its script beside the
   * executable, lib/startup-snapshot.ts): the runner starts the engine from it when its node
   * accepts it, else makes one in the background (mailscan; docs/mailscan-startup.md).
   */
  startupSnapshot?: boolean;
  /**
   * Flags the runner starts the engine's node with, before the executable (a V8 heap flag: the
   * engine's memory should not follow the host's). Each is measured in the engine's doc; none when
   * absent. secretscan: `--max-semi-space-size=2` (docs/secretscan.md, "Memory").
   */
  nodeFlags?: readonly string[];
  /**
   * The scope key the runner sets to the job's scan type, for an engine that runs more than one
   * (netscan: `mode`, `vm` or `vapt`).
   */
  scanTypeScopeKey?: string;
  /**
   * Which operator keys (from the operator secret) reach the engine, by name prefix; every
   * `<settingsPrefix>*` key when absent; none when empty (secretscan, whose tokens are tenant credentials, §16).
   */
  operatorKeyPrefixes?: readonly string[];
  /** What one target's scan may write to /tmp, in MiB: the dispatch function's /tmp is sized from it. */
  tmpMbPerTarget?: number;
  /** The built executable's size limit in KiB (scripts/bundle-budget.ts). */
  bundleBudgetKiB: number;
  testNeeds: TestNeeds;
  /** Its page under docs/ (`docs/<name>.md`). */
  doc: string;
  /** One line for the README's engine table. */
  summary: string;
}
