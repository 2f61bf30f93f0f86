/** Where the CLI writes: stdout carries only the report, stderr only JSON-line diagnostics. */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Readonly<Record<string, string | undefined>>;
  now: () => Date;
}

export type Log = (event: string, fields?: Record<string, unknown>) => void;

/** One JSON object per line; `level` is error for usage and start failures, info otherwise. */
export function makeStderrLog(io: CliIo): { info: Log; error: Log } {
  const write =
    (level: 'info' | 'error') =>
    (event: string, fields: Record<string, unknown> = {}) => {
      io.stderr(`${JSON.stringify({ time: io.now().toISOString(), level, event, ...fields })}\n`);
    };
  return { info: write('info'), error: write('error') };
}

export const EXIT = { ok: 0, usage: 2, couldNotStart: 3 } as const;
