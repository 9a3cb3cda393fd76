/**
 * The env file the console hands a token over in: the lines `ams dev
 * bootstrap` prints (same quoting as the CLI), one line per variable whatever
 * the values; a value with a line break is refused rather than split into
 * another variable; any agent name gives a safe file name (property, fixed seed).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatEnvLines } from '../../../packages/dev/src/cli/env-lines.js';
import { agentEnvFile, envFileName, quoteEnvValue } from '../../../packages/dev/src/console/env-file.js';

/** Reads a dotenv line as a shell would: `NAME=value` or `NAME='va'\''lue'`. */
function parseLine(line: string): [string, string] {
  const eq = line.indexOf('=');
  const name = line.slice(0, eq);
  const raw = line.slice(eq + 1);
  if (!raw.startsWith("'")) return [name, raw];
  return [name, raw.slice(1, -1).replaceAll(`'\\''`, "'")];
}

const NAMES = ['AMS_BASE_URL', 'AMS_AGENT_ID', 'AMS_AGENT_TOKEN', 'AMS_KEY_DIR'];
// eslint-disable-next-line no-control-regex -- the property excludes exactly these
const noControl = fc.string({ unit: 'grapheme' }).filter((s) => !/[\u0000-\u001f\u007f]/.test(s));

describe('agent env file', () => {
  it('is the four lines ams dev bootstrap prints, formatted as the CLI formats them', () => {
    const env = { baseUrl: 'http://127.0.0.1:40123', agentId: 'agt_1', token: 'hsk_abc.DEF-12' };
    const text = agentEnvFile(env);
    expect(text).toBe(
      'AMS_BASE_URL=http://127.0.0.1:40123\nAMS_AGENT_ID=agt_1\nAMS_AGENT_TOKEN=hsk_abc.DEF-12\nAMS_KEY_DIR=./.ams-keys\n',
    );
    expect(text).toBe(
      formatEnvLines({
        AMS_BASE_URL: env.baseUrl,
        AMS_AGENT_ID: env.agentId,
        AMS_AGENT_TOKEN: env.token,
        AMS_KEY_DIR: './.ams-keys',
      }),
    );
  });

  it('any values without control characters: exactly one line per variable, read back unchanged (property)', () => {
    fc.assert(
      fc.property(noControl, noControl, noControl, noControl, (baseUrl, agentId, token, keyDir) => {
        const lines = agentEnvFile({ baseUrl, agentId, token, keyDir }).split('\n');
        expect(lines.pop()).toBe('');
        expect(lines.map(parseLine)).toEqual([
          [NAMES[0], baseUrl],
          [NAMES[1], agentId],
          [NAMES[2], token],
          [NAMES[3], keyDir],
        ]);
      }),
    );
  });

  it('a value with a line break or other control character is refused, never a new line (property)', () => {
    const injected = fc
      .tuple(noControl, fc.constantFrom('\n', '\r', '\r\n', '\u0000', '\u001b'), noControl)
      .map(([a, c, b]) => `${a}${c}AMS_AGENT_TOKEN=${b}`);
    fc.assert(
      fc.property(injected, (value) => {
        expect(() => quoteEnvValue(value)).toThrow(/control character/);
        expect(() => agentEnvFile({ baseUrl: 'http://x', agentId: value, token: 't' })).toThrow();
      }),
    );
  });

  it('any agent name gives ams-agent-<safe>.env (property)', () => {
    expect(envFileName('Echo bot')).toBe('ams-agent-echo-bot.env');
    expect(envFileName('x\nAMS_AGENT_TOKEN=evil')).toBe('ams-agent-x-ams_agent_token-evil.env');
    expect(envFileName('../../etc/passwd')).toBe('ams-agent-etc-passwd.env');
    expect(envFileName('🤖')).toBe('ams-agent-agent.env');
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (name) => {
        expect(envFileName(name)).toMatch(/^ams-agent-[a-z0-9_](?:[a-z0-9_-]{0,38}[a-z0-9_])?\.env$/);
      }),
    );
  });
});
