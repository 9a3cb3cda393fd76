/**
 * A pluggable logger. The SDK logs through a {@link Logger} that the caller
 * passes in (pino, winston, console or anything with four methods); by default
 * it logs nothing ({@link silentLogger}).
 *
 * Every line the SDK writes goes through {@link redactingLogger} first, so a
 * token, key or ciphertext that slipped into a message or a field is replaced
 * by a placeholder before it reaches the caller's logger.
 *
 * @module
 */
import { redactParams, redactSecrets } from './errors/redact.js';

/** Structured fields of one log line (ids, counts, codes; never secrets). */
export type LogFields = Readonly<Record<string, unknown>>;

/**
 * Where the SDK writes log lines. Each method takes a message and optional
 * structured fields.
 *
 * @example
 * ```ts
 * const logger: Logger = {
 *   debug: (msg, fields) => console.debug(msg, fields ?? {}),
 *   info: (msg, fields) => console.info(msg, fields ?? {}),
 *   warn: (msg, fields) => console.warn(msg, fields ?? {}),
 *   error: (msg, fields) => console.error(msg, fields ?? {}),
 * };
 * ```
 */
export interface Logger {
  /** Detail useful while debugging (state changes, retries). */
  debug(message: string, fields?: LogFields): void;
  /** Notable, expected events (connected, reconnecting). */
  info(message: string, fields?: LogFields): void;
  /** Something went wrong but the SDK coped (a malformed frame, a retry budget spent). */
  warn(message: string, fields?: LogFields): void;
  /** Something went wrong and the SDK gave up (a fatal close). */
  error(message: string, fields?: LogFields): void;
}

const noop = (): void => undefined;

/** A logger that discards everything: the default wherever a `logger` option exists. */
export const silentLogger: Logger = Object.freeze({ debug: noop, info: noop, warn: noop, error: noop });

/**
 * Wraps `logger` so that every message and every string in `fields` passes
 * through `redactSecrets` (tokens, JWTs, Bearer values and long key-like runs
 * become placeholders). A logger that throws is ignored: logging never breaks
 * the SDK.
 *
 * @example
 * ```ts
 * const log = redactingLogger(options.logger ?? silentLogger);
 * log.warn('request failed', { path: '/agents/a1/messages' });
 * ```
 */
export function redactingLogger(logger: Logger): Logger {
  if (logger === silentLogger) return silentLogger;
  const wrap =
    (level: keyof Logger) =>
    (message: string, fields?: LogFields): void => {
      try {
        const clean = redactSecrets(message);
        if (fields === undefined) logger[level](clean);
        else logger[level](clean, redactParams(fields));
      } catch {
        // A failing logger must not take the transport down with it.
      }
    };
  return { debug: wrap('debug'), info: wrap('info'), warn: wrap('warn'), error: wrap('error') };
}

/** The levels of a {@link Logger}, least severe first. */
export type LogLevel = keyof Logger;

const LEVEL_RANK: Readonly<Record<LogLevel, number>> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Options of {@link consoleLogger}. */
export interface ConsoleLoggerOptions {
  /** Lines below this level are dropped. @defaultValue `'warn'` */
  readonly level?: LogLevel;
  /** Put before every line. @defaultValue `'[agent-messaging-sdk]'` */
  readonly prefix?: string;
  /** Where lines go. @defaultValue the global `console` (stderr for `warn` and `error` in Node) */
  readonly console?: Pick<Console, 'debug' | 'info' | 'warn' | 'error'>;
}

function formatFields(fields: LogFields | undefined): string {
  if (fields === undefined) return '';
  const { stack, ...rest } = fields as Record<string, unknown>;
  const keys = Object.keys(rest);
  const head = keys.length === 0 ? '' : ` ${JSON.stringify(rest)}`;
  return typeof stack === 'string' && stack !== '' ? `${head}\n${stack}` : head;
}

/**
 * A logger writing to the console, one line per entry (a `stack` field goes
 * on the lines below): the Agent's default, at `warn`, so a failure is never
 * silent. Wrap it in {@link redactingLogger} (the Agent does) before use.
 *
 * @example
 * ```ts
 * const agent = new Agent({ ...options, logger: consoleLogger({ level: 'info' }) });
 * ```
 */
export function consoleLogger(options: ConsoleLoggerOptions = {}): Logger {
  const min = LEVEL_RANK[options.level ?? 'warn'];
  const prefix = options.prefix ?? '[agent-messaging-sdk]';
  const out = options.console ?? globalThis.console;
  const line =
    (level: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (LEVEL_RANK[level] < min) return;
      out[level](`${prefix} ${level}: ${message}${formatFields(fields)}`);
    };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}
