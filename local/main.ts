import { join } from 'node:path';
import { buildMailscan } from '../layers/mailscan/build.ts';
import { makeMailscanRunner } from '../shared/adapters/runners/mailscan-runner.ts';
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
  '    ALLOWED_ORIGINS (comma-separated), LOG_LEVEL (INFO), LOG_FORMAT (json | pretty; pretty on a terminal),\n' +
  "    MAILSCAN_* (the scanner's keys). On a terminal, Enter prints a new sign-in link.";
parseCommandLine(USAGE, {});
const port = portFromEnv();
const dataDir = dataDirFromEnv();
const quota = process.env.SCHEDULE_QUOTA ? Number(process.env.SCHEDULE_QUOTA) : undefined;
const dispatchConcurrency = process.env.DISPATCH_CONCURRENCY ? Number(process.env.DISPATCH_CONCURRENCY) : undefined;
const allowPrivateTargets = process.env.ALLOW_PRIVATE_TARGETS === 'true';
const allowedOrigins = (process.env.ALLOWED_ORIGINS ?? '')
  .split(',')
  .map((origin) => origin.trim())
  .filter(Boolean);
const pretty = wantsPrettyLogs(process.env, process.stdout.isTTY === true);
const logger = pretty
  ? new TerminalLogger({ serviceName: 'local', logLevel: (process.env.LOG_LEVEL ?? 'INFO') as 'INFO' })
  : makeLogger('local');

// The same CLI the Lambda layer carries, rebuilt from source at every start (about a second). Its
// compile cache lives under DATA_DIR, as /tmp holds it in Lambda (docs/mailscan-startup.md).
const mailscanBin = await buildMailscan();
const mailscanEnv = { ...process.env, MAILSCAN_COMPILE_CACHE: process.env.MAILSCAN_COMPILE_CACHE ?? join(dataDir, 'cache', 'mailscan') };
const runners = new Map([['email_security' as const, makeMailscanRunner({ bin: mailscanBin, env: mailscanEnv })]]);

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
  startTimers: true,
  uiDir,
  logger,
});
const listening = Number(new URL(runtime.url).port);
const interactive = process.stdin.isTTY === true;
process.stdout.write(
  `scan service listening on ${runtime.url}\n` +
    `  data: ${dataDir} (${runtime.rearmed} trigger(s) re-armed, ${runtime.requeued} unfinished scan(s) requeued)\n` +
    `  scanners: email_security → ${mailscanBin} (configure it with MAILSCAN_* variables)\n` +
    `  session token (another shell): ${commandFor('npm run session -- --tenant acme --role admin', { dataDir })}\n` +
    `  reconcile (another shell): ${commandFor('npm run reconcile', { dataDir, port: listening })}\n` +
    `  web UI: ${runtime.url}/ (from ${uiDir})\n` +
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
