/**
 * Chaos: WebSocket mode, the server restarted 5 times mid-stream (state
 * kept, 40 ms down): 600 messages over 4 conversations, each handled
 * exactly once and in order within its conversation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { everyHundred, expectClean, startChaos, type ChaosWorld } from '../helpers/chaos.js';
import { restartFault } from '../helpers/chaos-faults.js';

let world: ChaosWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('chaos: server restarts', () => {
  it('600 messages over 4 conversations, 5 restarts: none lost, none twice, none out of order', async () => {
    world = await startChaos({ transport: 'websocket' });
    const report = await world.run(everyHundred(5, restartFault));
    expectClean(report, 600);
    expect(world.connects).toBeGreaterThanOrEqual(6);
  });
});
