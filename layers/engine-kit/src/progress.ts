/** Where a CLI writes: stdout carries only the report, stderr only JSON-line diagnostics. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
}

export type Progress = (event: string, fields?: Record<string, unknown>) => void;

/** One JSON object per line on stderr: `{time, level, event, ...fields}`. */
export function makeProgress(io: CliIo): { info: Progress; error: Progress } {
  const write =
    (level: 'info' | 'error'): Progress =>
    (event, fields = {}) => {
      io.stderr(`${JSON.stringify({ time: io.now().toISOString(), level, event, ...fields })}\n`);
    };
  return { info: write('info'), error: write('error') };
}

export const EXIT = { ok: 0, usage: 2, couldNotStart: 3 } as const;

/** The process's own streams and environment. */
export function processIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    now: () => new Date(),
  };
}
