import { join, resolve } from 'node:path';
import { buildMailscan } from '../layers/mailscan/build.ts';
import { makeMailscanRunner } from '../shared/adapters/runners/mailscan-runner.ts';
import { startLocalRuntime } from './runtime.ts';
import { ensureUiBuilt } from './web-ui.ts';

// `npm start`: the whole service in one process on embedded defaults.
const port = Number(process.env.PORT ?? 3000);
const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const quota = process.env.SCHEDULE_QUOTA ? Number(process.env.SCHEDULE_QUOTA) : undefined;
const dispatchConcurrency = process.env.DISPATCH_CONCURRENCY ? Number(process.env.DISPATCH_CONCURRENCY) : undefined;
const allowPrivateTargets = process.env.ALLOW_PRIVATE_TARGETS === 'true';
const allowedOrigins = (process.env.ALLOWED_ORIGINS ?? '')
  .split(',')
  .map((origin) => origin.trim())
  .filter(Boolean);

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
});
process.stdout.write(
  `scan service listening on ${runtime.url}\n` +
    `  data: ${dataDir} (${runtime.rearmed} trigger(s) re-armed, ${runtime.requeued} unfinished scan(s) requeued)\n` +
    `  scanners: email_security → ${mailscanBin} (configure it with MAILSCAN_* variables)\n` +
    `  session: npm run session -- --tenant acme --role admin\n` +
    `  web UI: ${runtime.url}/ (from ${uiDir})\n` +
    `\nOpen the UI (this link signs you in once, as an admin of tenant "local"):\n  ${await runtime.signInUrl()}\n`,
);

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
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
