/**
 * The streams and environment a CLI command works with, injectable so tests
 * run commands in-process with captured output.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';

/** Output streams, input and environment of the CLI, injectable for tests. */
export interface CliIo {
  /** Results: what a script reads. */
  stdout: { write(text: string): unknown };
  /** Progress, hints, warnings and errors. `isTTY` decides whether hints for humans are shown. */
  stderr: { write(text: string): unknown; readonly isTTY?: boolean };
  /**
   * Where `-` (read from standard input) reads from.
   * @defaultValue `process.stdin`
   */
  stdin?: AsyncIterable<Uint8Array | string>;
  /**
   * Environment variables for `AMS_*` defaults.
   * @defaultValue `process.env`
   */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * The working directory (for `.env` and `.gitignore`).
   * @defaultValue `process.cwd()`
   */
  workDir?: string;
}

/** The working directory of `io`. */
export function cwdOf(io: CliIo): string {
  return io.workDir ?? process.cwd();
}

/** The environment of `io` (`process.env` when it has none). */
export function envOf(io: CliIo): Readonly<Record<string, string | undefined>> {
  return io.env ?? process.env;
}

/** A non-empty environment variable, else `undefined`. */
export function envValue(io: CliIo, name: string): string | undefined {
  const v = envOf(io)[name];
  return v === undefined || v === '' ? undefined : v;
}

/** Reads all of standard input as bytes. */
export async function readStdin(io: CliIo): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  const stdin = io.stdin ?? process.stdin;
  if ((stdin as { isTTY?: boolean }).isTTY === true) {
    io.stderr.write('ams: reading standard input (end with Ctrl-D)…\n');
  }
  for await (const chunk of stdin) {
    chunks.push(typeof chunk === 'string' ? new TextEncoder().encode(chunk) : chunk);
  }
  return new Uint8Array(Buffer.concat(chunks));
}

/** Reads a file, or standard input when `path` is `-`. */
export async function readInput(io: CliIo, path: string): Promise<Uint8Array> {
  return path === '-' ? readStdin(io) : new Uint8Array(await readFile(path));
}

/** Writes one JSON value as a line. */
export function writeJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}
