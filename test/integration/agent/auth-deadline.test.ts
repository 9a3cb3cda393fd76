/**
 * The WebSocket auth deadline from both sides, and the token never in the
 * upgrade request:
 * - a server that never answers the `auth` frame: the client gives up after
 *   its own deadline and reconnects (the request line and headers never carry
 *   the token; the first frame does);
 * - a client whose `auth` frame would come late: the reference server closes
 *   with 4002 after 5 s (virtual time) and the agent reconnects and authenticates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import type { WebSocketConstructor, WebSocketLike } from '../../../packages/sdk/src/transport/ws/index.js';
import { stageWsServer, type StagedWsServer } from '../../helpers/transport-ws.js';
import { createAccount, newAgent, startWorld, waitFor } from '../../helpers/agent-world.js';

let server: ReferenceServer;
let staged: StagedWsServer;
beforeAll(async () => {
  server = await startWorld({ virtualTime: true });
  staged = await stageWsServer();
});
afterAll(async () => {
  await staged.close();
  await server.close();
});

describe('auth deadline', () => {
  it('a server that never answers: the client times out, reconnects, and the token is only in the first frame', async () => {
    const account = await createAccount(server);
    const agent = newAgent(server, account, {
      webSocketUrl: staged.url,
      webSocketTimeouts: { authTimeoutMs: 150 },
    });
    const disconnects: number[] = [];
    agent.on('disconnected', ({ code }) => void disconnects.push(code));
    const connecting = agent.connect();
    const second = await staged.connectionCount(2);
    const first = staged.connections[0]!;
    for (const conn of [first, second]) {
      expect(conn.url).toBe('/ws');
      expect(JSON.stringify(conn.headers)).not.toContain(account.token);
      expect(JSON.parse(await conn.frame(0))).toEqual({
        type: 'auth',
        agent_id: account.agentId,
        token: account.token,
        ack: true,
      });
    }
    await waitFor(() => first.closed !== undefined, 'the first socket closed by the client');
    expect(disconnects.length).toBeGreaterThanOrEqual(1);
    expect(agent.state).toBe('connecting');
    await agent.close();
    await expect(connecting).rejects.toMatchObject({ code: 'TRANSPORT_CLOSED' });
  });

  it('a client that would send its auth frame late: closed with 4002, then it reconnects and authenticates', async () => {
    const account = await createAccount(server);
    let held: (() => void) | undefined;
    let sockets = 0;
    class LateFirstFrame extends WebSocket {
      readonly #index = sockets++;
      override send(data: string): void {
        if (this.#index === 0 && held === undefined) {
          held = () => super.send(data);
          return;
        }
        super.send(data);
      }
    }
    const agent = newAgent(server, account, {
      WebSocket: LateFirstFrame as unknown as WebSocketConstructor & (new (url: string) => WebSocketLike),
    });
    const disconnects: number[] = [];
    agent.on('disconnected', ({ code }) => void disconnects.push(code));
    const connecting = agent.connect();
    await waitFor(() => held !== undefined, 'the first auth frame to be held back');
    server.advanceTime(5_000);
    await connecting;
    expect(disconnects).toEqual([4002]);
    expect(sockets).toBe(2);
    expect(agent.state).toBe('running');
    await agent.close();
  });
});
