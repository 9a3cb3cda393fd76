/** Captured streams for running CLI commands in-process. */
import type { CliIo } from '../../../packages/dev/src/cli/io.js';

/** A CliIo whose output is collected in `out` / `err`. */
export interface CapturedIo extends CliIo {
  out: string;
  err: string;
}

/** Captures stdout and stderr; `stdin` (bytes or text), `env` and `workDir` are optional. */
export function captureIo(
  options: {
    stdin?: string | Uint8Array;
    env?: Record<string, string>;
    tty?: boolean;
    workDir?: string;
  } = {},
): CapturedIo {
  const io: CapturedIo = {
    out: '',
    err: '',
    stdout: { write: (t: string) => (io.out += t) },
    stderr: { write: (t: string) => (io.err += t), isTTY: options.tty ?? false },
    env: options.env ?? {},
    ...(options.workDir === undefined ? {} : { workDir: options.workDir }),
    stdin: (async function* () {
      if (options.stdin !== undefined) yield options.stdin;
    })(),
  };
  return io;
}
