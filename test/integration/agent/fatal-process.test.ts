/**
 * A bot whose agent stops for good must not exit 0 in silence: with no
 * `fatal` listener the reason goes to stderr (the default logger) and the
 * process exits 1. Also: another process connecting as the same agent is
 * named as such.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AmsError } from '../../../packages/sdk/src/core/errors/index.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { call } from '../../helpers/server-http.js';
import { startBot } from '../../helpers/agent-process.js';
import { createAccount, newAgent, recordingLogger, startWorld, waitFor } from '../../helpers/agent-world.js';

let server: ReferenceServer;
beforeAll(async () => {
  server = await startWorld();
});
afterAll(() => server.close());

describe('fatal is loud', () => {
  it('token revoked while running, no fatal listener: exit code 1 and the reason on stderr', async () => {
    const account = await createAccount(server);
    const bot = startBot({
      AMS_BASE_URL: server.url,
      AMS_AGENT_ID: account.agentId,
      AMS_AGENT_TOKEN: account.token,
    });
    await bot.waitForLine('ready');
    const res = await call(server, 'DELETE', `/agents/${account.agentId}/token`, {
      token: account.owner.accessToken,
    });
    expect(res.status, res.text).toBe(200);
    const exit = await bot.exited;
    expect(exit.code, bot.stderr()).toBe(1);
    expect(bot.stderr()).toContain('the service does not know this agent or its token (invalid or revoked)');
    expect(bot.stderr()).toContain('AGENT_TOKEN_INVALID');
    expect(bot.stderr()).not.toContain(account.token);
  });

  it('a second process as the same agent: fatal names it, at error level', async () => {
    const account = await createAccount(server);
    const log = recordingLogger();
    const first = newAgent(server, account, { logger: log, shutdownSignals: false });
    const fatal: AmsError[] = [];
    first.on('fatal', (err) => void fatal.push(err));
    await first.connect();
    const second = newAgent(server, account, { logger: false, shutdownSignals: false });
    await second.connect();
    await waitFor(() => fatal.length === 1, 'fatal');
    expect(fatal[0]!.message).toContain('another process connected as this agent');
    expect(log.lines.find((l) => l.startsWith('error the agent stopped for good'))).toContain(
      'another process connected as this agent',
    );
    await first.close();
    await second.close();
  });
});
