// node:fs, as config-file.ts: already loaded for the config, where fs/promises would cost its own start-up.
import { readFileSync, statSync } from 'node:fs';
import { TECHNIQUE_SURFACES } from '../adversary/technique-names.ts';
import { EmailSecurityScopeFile } from '../scope.ts';
import type { ScanArgs } from './args.ts';

/** A scope file larger than this is not one the runner wrote. */
const MAX_SCOPE_FILE_BYTES = 64 * 1024;

/**
 * `--scope-json FILE`, the kit's frame (docs/engine-contract.md): the runner writes the job's scope
 * there, its artifacts (`rua`, `header`) as the paths of the local copies it fetched. Parsed with the
 * API's schema (artifacts as paths), strict: a key the API would refuse is a usage error here too.
 */
export async function applyScopeFile(args: ScanArgs): Promise<{ ok: true; args: ScanArgs } | { ok: false; message: string }> {
  if (args.scopeFile === null) return { ok: true, args };
  let text: string;
  try {
    if (statSync(args.scopeFile).size > MAX_SCOPE_FILE_BYTES)
      return { ok: false, message: `--scope-json: larger than ${MAX_SCOPE_FILE_BYTES} bytes` };
    text = readFileSync(args.scopeFile, 'utf8');
  } catch (error) {
    return { ok: false, message: `--scope-json: ${(error as Error).message}` };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, message: '--scope-json: not JSON' };
  }
  const parsed = EmailSecurityScopeFile.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, message: `--scope-json: ${issue?.path.join('.') || 'scope'} ${issue?.message ?? 'is invalid'}` };
  }
  const scope = parsed.data;
  const techniques = scope.techniques ?? [];
  if (techniques.length > 0 && scope.reputation === false)
    return { ok: false, message: '--scope-json: techniques need the reputation surface; drop reputation: false' };
  const needs = (surface: 'discover' | 'leak') => techniques.some((technique) => TECHNIQUE_SURFACES[technique][surface]);
  return {
    ok: true,
    args: {
      ...args,
      reputation: scope.reputation !== false,
      discover: scope.discover === true || needs('discover'),
      leak: scope.leak === true || needs('leak'),
      rua: scope.rua ?? [],
      eml: scope.header ?? null,
      dkimSelectors: scope.dkim_selectors ?? [],
      techniques: [...techniques],
    },
  };
}
