import { fileURLToPath } from 'node:url';

/** Absolute path of the repository root: entry files, package-lock.json and cdk.json live there. */
export const repositoryRoot = fileURLToPath(new URL('..', import.meta.url));
