/** Path globs of the scope (`include_paths`, `exclude_paths`, `ignore`): `*` within a segment, `**` across. */
export function globMatcher(glob: string): (path: string) => boolean {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i];
    if (char === '*' && glob[i + 1] === '*') {
      source += '.*';
      i += 1;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  const pattern = new RegExp(`^${source}$`);
  return (path) => pattern.test(path);
}

export function anyGlob(globs: readonly string[] | undefined): ((path: string) => boolean) | undefined {
  if (!globs || globs.length === 0) return undefined;
  const matchers = globs.map(globMatcher);
  return (path) => matchers.some((match) => match(path));
}
