import type { ArtifactStore } from '../shared/ports/artifact-store.ts';
import { join } from 'node:path';
import { buildEngines, LAYER_DIST } from '../layers/build.ts';
import { MANIFESTS } from '../layers/manifests.ts';
import { makeEngineRunners } from '../shared/adapters/runners/engine-registry.ts';
import { makeLogger } from '../shared/observability/logger.ts';
import { commandFor, dataDirFromEnv, parseCommandLine, portFromEnv } from './command-line.ts';
import { startLocalRuntime } from './runtime.ts';
import { offerSignInLinks } from './sign-in-prompt.ts';
import { TerminalLogger, wantsPrettyLogs } from './terminal-logger.ts';
import { ensureUiBuilt } from './web-ui.ts';

// `npm start`: the whole service in one process on embedded defaults.
const USAGE =
  'usage: npm start\n' +
  '  Runs the whole service locally. Settings are environment variables:\n' +
  '    PORT (3000), DATA_DIR (.data/), SCHEDULE_QUOTA, DISPATCH_CONCURRENCY, ALLOW_PRIVATE_TARGETS=true,\n' +
  '    ALLOW_LOOPBACK_TARGETS=true (scan servers on this machine: 127.0.0.0/8, ::1, localhost),\n' +
  '    SMTP_URL (notification email, e.g. smtp://127.0.0.1:2525; else DATA_DIR/outbox/outbox.jsonl),\n' +
  '    ALLOWED_ORIGINS (comma-separated), LOG_LEVEL (INFO), LOG_FORMAT (json | pretty; pretty on a terminal),\n' +
  `    ${MANIFESTS.map((manifest) => `${manifest.settingsPrefix}*`).join(', ')} (the engines' settings and keys). On a terminal, Enter prints a new sign-in link.`;
parseCommandLine(USAGE, {});
const port = portFromEnv();
const dataDir = dataDirFromEnv();
const quota = process.env.SCHEDULE_QUOTA ? Number(process.env.SCHEDULE_QUOTA) : undefined;
const dispatchConcurrency = process.env.DISPATCH_CONCURRENCY ? Number(process.env.DISPATCH_CONCURRENCY) : undefined;
const allowPrivateTargets = process.env.ALLOW_PRIVATE_TARGETS === 'true';
const allowLoopbackTargets = process.env.ALLOW_LOOPBACK_TARGETS === 'true';
const smtpUrl = process.env.SMTP_URL || undefined;
const allowedOrigins = (process.env.ALLOWED_ORIGINS ?? '')
  .split(',')
  .map((origin) => origin.trim())
  .filter(Boolean);
const pretty = wantsPrettyLogs(process.env, process.stdout.isTTY === true);
const logger = pretty
  ? new TerminalLogger({ serviceName: 'local', logLevel: (process.env.LOG_LEVEL ?? 'INFO') as 'INFO' })
  : makeLogger('local');

// The same CLIs the Lambda layer carries, rebuilt from source at every start (a second or two).
// Their compile caches live under DATA_DIR, as /tmp holds them in Lambda (docs/mailscan-startup.md).
const engines = await buildEngines();
const engineEnv = { ...process.env };
for (const name of engines.keys()) {
  const variable = `${name.toUpperCase()}_COMPILE_CACHE`;
  engineEnv[variable] ??= join(dataDir, 'cache', name);
}
// Where the runner keeps mailscan's start-up snapshot it makes with this node when the build's
// blob is not one this node accepts (docs/mailscan-startup.md); the build's usually is, here.
engineEnv.MAILSCAN_SNAPSHOT_CACHE ??= join(dataDir, 'cache', 'mailscan-snapshot');
const runners = ({ artifacts }: { artifacts?: ArtifactStore } = {}) =>
  makeEngineRunners({
    binDir: join(LAYER_DIST, 'bin'),
    env: engineEnv,
    allowLoopback: allowLoopbackTargets,
    allowPrivate: allowPrivateTargets,
    artifacts,
  });

// The UI is built from web/ when web/dist is missing or older than its sources (a few seconds).
const uiDir = await ensureUiBuilt({ log: (line) => process.stdout.write(`${line}\n`) });

const runtime = await startLocalRuntime({
  port,
  dataDir,
  quota,
  allowedOrigins,
  runners,
  dispatchConcurrency,
  allowPrivateTargets,
  allowLoopbackTargets,
  smtpUrl,
  startTimers: true,
  uiDir,
  logger,
});
const listening = Number(new URL(runtime.url).port);
const interactive = process.stdin.isTTY === true;
process.stdout.write(
  `scan service listening on ${runtime.url}\n` +
    `  data: ${dataDir} (${runtime.rearmed} trigger(s) re-armed, ${runtime.requeued} unfinished scan(s) requeued)\n` +
    `  scanners: ${[...runners()].map(([type, runner]) => `${type} → ${runner.name}`).join(', ')} (in ${join(LAYER_DIST, 'bin')}; settings: <ENGINE>_* variables)\n` +
    (allowLoopbackTargets ? '  loopback targets allowed (ALLOW_LOOPBACK_TARGETS=true): engines may scan this machine\n' : '') +
    `  session token (another shell): ${commandFor('npm run session -- --tenant acme --role admin', { dataDir })}\n` +
    `  reconcile (another shell): ${commandFor('npm run reconcile', { dataDir, port: listening })}\n` +
    `  web UI: ${runtime.url}/ (from ${uiDir})\n` +
    `  notification email: ${smtpUrl ? `SMTP ${new URL(smtpUrl).host}` : join(dataDir, 'outbox', 'outbox.jsonl')}\n` +
    `  logs: ${pretty ? 'one line each, metrics and scan steps left out (LOG_FORMAT=json for JSON)' : 'JSON lines'}\n` +
    `\nOpen the UI (this link signs you in once, as an admin of tenant "local"):\n  ${await runtime.signInUrl()}\n` +
    (interactive ? '  Press Enter here for a new link.\n' : ''),
);
const stopPrompt = interactive ? offerSignInLinks(process.stdin, process.stdout, () => runtime.signInUrl()) : () => undefined;

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  stopPrompt();
  process.stdout.write(`${signal}: stopping\n`);
  runtime.stop().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
};
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
