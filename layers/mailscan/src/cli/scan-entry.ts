/**
 * What mailscan's definition loads for a scan, in one dynamic import (cli/definition.ts): each
 * module a scan imports on its own is a chunk of the bundle that every scan opens, reads and links
 * (docs/mailscan-startup.md). zod's jitless setting first: zod reads it when a schema is built.
 */
import './zod-jitless.ts';

export { EmailSecurityScopeFile } from '../scope.ts';
export { prepareScan } from './scan-settings.ts';
export { runScan } from './scan-command.ts';
