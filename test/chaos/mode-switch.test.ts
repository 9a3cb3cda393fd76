/**
 * Chaos: the owner switches the agent between WebSocket and webhook mode 5
 * times mid-stream (registering the webhook closes the agent's WebSocket
 * with 4013 and that agent is closed; removing it brings a new WebSocket
 * agent; both share keys and de-duplication store): 600 messages over 4
 * conversations, each handled exactly once and in order within its
 * conversation.
 *
 * With busy handlers the WebSocket agent still works through a backlog when
 * the switch happens: the service resends what it did not acknowledge by
 * webhook, first, and the webhook copy of an event still being handled is
 * answered 429 (Retry-After 2 s) until that handling ends, so order holds.
 * Before acknowledged delivery this case lost order (42–113 of 600).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { expectClean, startChaos, type ChaosWorld } from '../helpers/chaos.js';
import { modeSwitchFault } from '../helpers/chaos-faults.js';

let world: ChaosWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** The switches: to webhook at 100, back at 200, and so on (5 in all, ending in webhook mode). */
const switches = () =>
  [100, 200, 300, 400, 500].map((at, i) => modeSwitchFault(at, i % 2 === 0 ? 'webhook' : 'websocket'));

describe('chaos: delivery mode switches', () => {
  it('600 messages over 4 conversations, 5 switches, handlers done at once: none lost, none twice, none out of order', async () => {
    world = await startChaos({ transport: 'websocket', paceMs: 10 });
    const report = await world.run(switches());
    expectClean(report, 600);
    expect(world.agents.map((a) => a.mode)).toEqual(['websocket', 'webhook', 'websocket', 'websocket']);
  });

  it('600 messages over 4 conversations, 5 switches, handlers busy 20 ms (a backlog at each switch): none lost, none twice, none out of order', async () => {
    world = await startChaos({ transport: 'websocket', paceMs: 10, handlerMs: 20 });
    const report = await world.run(switches());
    expectClean(report, 600);
    expect(world.agents.map((a) => a.mode)).toEqual(['websocket', 'webhook', 'websocket', 'websocket']);
  });
});
