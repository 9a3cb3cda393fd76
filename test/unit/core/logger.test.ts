import { describe, expect, it } from 'vitest';
import { redactingLogger, silentLogger, type Logger } from '../../../packages/sdk/src/core/logger.js';

const TOKEN = 'hsk_' + 'Lg9q'.repeat(10);

function recording(): { logger: Logger; lines: [string, string, unknown][] } {
  const lines: [string, string, unknown][] = [];
  const at = (level: string) => (message: string, fields?: unknown) =>
    void lines.push([level, message, fields]);
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

describe('logger', () => {
  it('the silent logger accepts everything and writes nothing', () => {
    expect(() => silentLogger.error('x', { a: 1 })).not.toThrow();
    expect(redactingLogger(silentLogger)).toBe(silentLogger);
  });

  it('redacts tokens and bearer values from messages and fields', () => {
    const { logger, lines } = recording();
    const log = redactingLogger(logger);
    log.warn(`failed with Bearer ${TOKEN}`, { token: TOKEN, nested: { auth: `Bearer abc.def` }, count: 3 });
    log.info('plain');
    expect(JSON.stringify(lines)).not.toContain(TOKEN);
    expect(lines[0]![0]).toBe('warn');
    expect(lines[0]![2]).toMatchObject({ count: 3 });
    expect(lines[1]).toEqual(['info', 'plain', undefined]);
  });

  it('a throwing logger is ignored', () => {
    const log = redactingLogger({
      debug: () => {
        throw new Error('disk full');
      },
      info: () => undefined,
      warn: () => undefined,
      error: () => undefined,
    });
    expect(() => log.debug('x')).not.toThrow();
  });
});
