/**
 * `ams serve`: runs the reference server in the foreground until SIGINT or
 * SIGTERM. Prints exactly one line to stdout when ready:
 * `ams serve: listening on <url> (WebSocket <wsUrl>)`. In dev mode it also
 * prints to stderr, one line each, the dev console's address (`/_console/`,
 * loopback only) and how to create a user and an agent (`ams dev bootstrap`),
 * whether or not stderr is a terminal (`--quiet` silences them); stdout keeps
 * its one line for scripts.
 *
 * @module
 */
import { startReferenceServer, type ReferenceServerOptions } from '../../testing/index.js';
import { cwdOf, type CliIo } from '../io.js';
import { resolve } from 'node:path';
import { activityLine } from '../serve-log.js';

/** Help text of `ams serve`. */
export const SERVE_HELP = `Usage: ams serve [--port N] [--host H] [--dev] [--data DIR] [--virtual-time] [--quiet]

Runs the reference server until Ctrl-C (state in memory unless --data).

Options:
  --port N         Port to listen on; 0 picks a free one (default 0)
  --host H         Interface to bind (default 127.0.0.1)
  --dev            Enable the control API under /_control/ (reads emailed codes,
                   sets Turnstile verdicts, moves virtual time) and, on a loopback
                   host, the dev console at /_console/. Local use only.
  --data DIR       Keep users, devices, key backups, agents (token hashes, public
                   keys) and relations in DIR across restarts (an embedded
                   journal, files of mode 0600; no plaintext token is written).
                   Messages, groups and webhook addresses stay in memory.
  --virtual-time   Run on a virtual clock that only moves through the control API
  --quiet          In dev mode, no addresses and no request and delivery log
                   on stderr (the log: one line each: method, path, status,
                   agent id / delivery step, agent id, attempt; never tokens
                   or bodies)
  -h, --help       Show this help
`;

/** Parsed `ams serve` arguments. */
export interface ServeArgs {
  readonly port: number;
  readonly host: string;
  readonly dev: boolean;
  readonly virtualTime: boolean;
  readonly quiet: boolean;
  /** `--data DIR`: the data directory, if any. */
  readonly data?: string;
}

/** Parses `ams serve` arguments; returns an error message for bad input. */
export function parseServeArgs(argv: readonly string[]): ServeArgs | { readonly error: string } | 'help' {
  let port = 0;
  let host = '127.0.0.1';
  let dev = false;
  let virtualTime = false;
  let quiet = false;
  let data: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '-h' || flag === '--help') return 'help';
    else if (flag === '--dev') dev = true;
    else if (flag === '--virtual-time') virtualTime = true;
    else if (flag === '--quiet') quiet = true;
    else if (flag === '--port') {
      const v = value();
      if (v === undefined || !/^\d{1,5}$/.test(v) || Number(v) > 65_535)
        return { error: '--port needs a number from 0 to 65535' };
      port = Number(v);
    } else if (flag === '--data') {
      const v = value();
      if (v === undefined || v.length === 0) return { error: '--data needs a directory' };
      data = v;
    } else if (flag === '--host') {
      const v = value();
      if (v === undefined || v.length === 0) return { error: '--host needs a value' };
      host = v;
    } else return { error: `unknown option '${arg}'` };
  }
  return { port, host, dev, virtualTime, quiet, ...(data === undefined ? {} : { data }) };
}

/** Resolves on the first SIGINT or SIGTERM. */
export function waitForSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * What `ams serve --dev` prints (to stderr, for a human) after the ready line,
 * one line each: the dev console's address, and how to create a user and an
 * agent on this server.
 */
export function devHint(url: string, consoleUrl?: string): string {
  return (
    (consoleUrl !== undefined ? `ams serve: dev console at ${consoleUrl} (open it in a browser)\n` : '') +
    `ams serve: a user and an agent: npx ams dev bootstrap --base-url ${url} >> .env` +
    ` (webhook mode: add --webhook-url http://127.0.0.1:3000/webhook)\n`
  );
}

/** Warnings about risky argument combinations (printed to stderr before start). */
export function serveWarnings(args: ServeArgs): string[] {
  return args.dev && !LOOPBACK.has(args.host)
    ? ['--dev on a non-loopback interface exposes verification codes.']
    : [];
}

/**
 * Runs `ams serve`. Resolves with the exit code once `waitForStop` resolves
 * and the server has closed.
 */
export async function runServe(
  argv: readonly string[],
  io: CliIo,
  waitForStop: () => Promise<void> = waitForSignal,
): Promise<number> {
  const args = parseServeArgs(argv);
  if (args === 'help') {
    io.stdout.write(SERVE_HELP);
    return 0;
  }
  if ('error' in args) {
    io.stderr.write(`ams serve: ${args.error}. Run 'ams serve --help'.\n`);
    return 2;
  }
  for (const warning of serveWarnings(args)) io.stderr.write(`ams serve: warning: ${warning}\n`);
  const options: ReferenceServerOptions = {
    port: args.port,
    host: args.host,
    dev: args.dev,
    virtualTime: args.virtualTime,
    ...(args.data === undefined ? {} : { dataDir: resolve(cwdOf(io), args.data) }),
    ...(args.dev && !args.quiet ? { onActivity: (a) => io.stderr.write(`${activityLine(a)}\n`) } : {}),
    logger: {
      info: () => {},
      warn: (m) => io.stderr.write(`ams serve: ${m}\n`),
      error: (m) => io.stderr.write(`ams serve: ${m}\n`),
    },
  };
  const server = await startReferenceServer(options);
  io.stdout.write(`ams serve: listening on ${server.url} (WebSocket ${server.wsUrl})\n`);
  if (options.dataDir !== undefined && !args.quiet) {
    io.stderr.write(`ams serve: users, agents and keys are kept in ${options.dataDir}\n`);
  }
  if (args.dev && !args.quiet) io.stderr.write(devHint(server.url, server.consoleUrl));
  await waitForStop();
  await server.close();
  return 0;
}
