/**
 * Where the CLI writes: stdout carries only the report, stderr only JSON-line diagnostics. The
 * shapes and the exit codes are every engine's (layers/engine-kit/src/progress.ts); mailscan keeps
 * its own names for them.
 */
export { EXIT, makeProgress as makeStderrLog, type CliIo, type Progress as Log } from '../../../engine-kit/src/progress.ts';
