import { TECHNIQUE_SURFACES, TECHNIQUES, type Technique } from '../adversary/technique-names.ts';
import { normaliseDomain } from '../../../../lib/domain-name.ts';

export const USAGE = [
  'mailscan scan <domain> [--no-reputation] [--rua FILE ...] [--eml FILE]',
  '                       [--dkim-selector NAME ...] [--nameserver HOST[:PORT] ...]',
  '                       [--timeout SECONDS] [--config FILE] [--format json|text]',
  '                       [--discover] [--leak] [--technique T1589.002|T1598 ...]',
  'mailscan scan <domain> --scope-json FILE [--nameserver ...] [--timeout SECONDS] [--config FILE] [--format json|text]',
  'mailscan rules',
  'mailscan --version',
].join('\n');

export interface ScanArgs {
  kind: 'scan';
  domain: string;
  reputation: boolean;
  dkimSelectors: string[];
  nameservers: string[];
  timeoutSeconds: number | null;
  configPath: string | null;
  format: 'json' | 'text';
  /** DMARC aggregate report files (XML, .zip, .gz), in the order given. */
  rua: string[];
  /** One message for the header surface; null when not asked for. */
  eml: string | null;
  /** --discover, or a technique that needs it. */
  discover: boolean;
  /** --leak, or a technique that needs it. */
  leak: boolean;
  techniques: Technique[];
  /**
   * The kit's frame (docs/engine-contract.md): the scope as the runner wrote it, its artifacts as
   * local paths; read by the scan command (cli/scope-file.ts) in place of the scope's flags.
   */
  scopeFile: string | null;
}

/** Flags a scope file replaces: the scope says it once. */
const SCOPE_FLAGS = ['no-reputation', 'discover', 'leak', 'rua', 'eml', 'dkim-selector', 'technique'] as const;

export type Command = { kind: 'version' } | { kind: 'rules' } | { kind: 'help' } | ScanArgs;
export type ParsedArgs = { ok: true; command: Command } | { ok: false; message: string };

const MAX_TIMEOUT_SECONDS = 3600;

export function parseArgs(argv: readonly string[]): ParsedArgs {
  // parseArgs alone, not node:util's namespace: an import of node:util becomes esbuild's
  // namespace copy, which reads every export's descriptor, and node 24 then loads what its lazy
  // exports stand for (util.diff, setTraceSigInt: worker_threads, locks, ~13 of node's modules)
  // in every process, and into the start-up snapshot's heap.
  const parseNodeArgs = process.getBuiltinModule('node:util').parseArgs;
  let parsed;
  try {
    parsed = parseNodeArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        'no-reputation': { type: 'boolean' },
        discover: { type: 'boolean' },
        leak: { type: 'boolean' },
        rua: { type: 'string', multiple: true },
        eml: { type: 'string' },
        'dkim-selector': { type: 'string', multiple: true },
        nameserver: { type: 'string', multiple: true },
        timeout: { type: 'string' },
        config: { type: 'string' },
        format: { type: 'string' },
        version: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
        technique: { type: 'string', multiple: true },
        'scope-json': { type: 'string' },
      },
    });
  } catch (error) {
    return { ok: false, message: (error as Error).message };
  }
  const { values, positionals } = parsed;
  if (values.version)
    return positionals.length === 0 ? { ok: true, command: { kind: 'version' } } : { ok: false, message: '--version takes no arguments' };
  if (values.help) return { ok: true, command: { kind: 'help' } };
  const [command, ...rest] = positionals;
  if (command === 'rules')
    return rest.length === 0 && Object.keys(values).length === 0
      ? { ok: true, command: { kind: 'rules' } }
      : { ok: false, message: 'rules takes no arguments' };
  if (command !== 'scan') return { ok: false, message: command === undefined ? 'no command given' : `unknown command "${command}"` };

  if (rest.length !== 1) return { ok: false, message: rest.length === 0 ? 'scan needs a domain' : 'scan takes exactly one domain' };
  const domain = normaliseDomain(rest[0]);
  if (domain === null) return { ok: false, message: `"${rest[0]}" is not a domain name` };
  const format = values.format ?? 'json';
  if (format !== 'json' && format !== 'text') return { ok: false, message: '--format must be json or text' };
  let timeoutSeconds: number | null = null;
  if (values.timeout !== undefined) {
    timeoutSeconds = Number(values.timeout);
    if (!/^\d+(\.\d+)?$/.test(values.timeout) || timeoutSeconds <= 0 || timeoutSeconds > MAX_TIMEOUT_SECONDS) {
      return { ok: false, message: `--timeout must be a number of seconds between 0 and ${MAX_TIMEOUT_SECONDS}` };
    }
  }
  const scopeFile = values['scope-json'] ?? null;
  if (scopeFile === '') return { ok: false, message: '--scope-json needs a file path' };
  const mixed = SCOPE_FLAGS.find((flag) => values[flag] !== undefined);
  if (scopeFile !== null && mixed !== undefined)
    return { ok: false, message: `--${mixed} cannot be given with --scope-json: the scope file says it` };
  const rua = values.rua ?? [];
  if (rua.some((file) => file === '')) return { ok: false, message: '--rua needs a file path' };
  if (values.eml === '') return { ok: false, message: '--eml needs a file path' };
  const dkimSelectors = values['dkim-selector'] ?? [];
  const badSelector = dkimSelectors.find((selector) => !/^[a-z0-9_-]{1,63}(\.[a-z0-9_-]{1,63})*$/i.test(selector));
  if (badSelector !== undefined) return { ok: false, message: `"${badSelector}" is not a DKIM selector` };
  const techniques = [...new Set(values.technique ?? [])];
  const unknownTechnique = techniques.find((technique) => !(TECHNIQUES as readonly string[]).includes(technique));
  if (unknownTechnique !== undefined)
    return { ok: false, message: `unsupported technique ${unknownTechnique}; supported: ${TECHNIQUES.join(', ')}` };
  // Every technique reads the block-list results, so it cannot run without the reputation surface.
  if (techniques.length > 0 && values['no-reputation'] === true)
    return { ok: false, message: '--technique needs the reputation surface; drop --no-reputation' };
  const needs = (surface: 'discover' | 'leak'): boolean =>
    techniques.some((technique) => TECHNIQUE_SURFACES[technique as Technique][surface]);
  return {
    ok: true,
    command: {
      kind: 'scan',
      discover: values.discover === true || needs('discover'),
      leak: values.leak === true || needs('leak'),
      techniques: techniques as Technique[],
      domain,
      reputation: values['no-reputation'] !== true,
      dkimSelectors,
      nameservers: values.nameserver ?? [],
      timeoutSeconds,
      configPath: values.config ?? null,
      format,
      rua,
      eml: values.eml ?? null,
      scopeFile,
    },
  };
}
