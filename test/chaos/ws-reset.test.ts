/**
 * Chaos: WebSocket mode through the fault proxy (30 ms latency per chunk, so
 * frames are always in flight), every connection reset (RST both ways) 5
 * times mid-stream: 600 messages over 4 conversations, each handled exactly
 * once and in order within its conversation.
 *
 * Before acknowledged delivery, 45–60 of 600 were lost: the server counted a
 * frame delivered once written to the socket, so frames in flight at a reset
 * were gone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { everyHundred, expectClean, startChaos, type ChaosWorld } from '../helpers/chaos.js';
import { resetFault } from '../helpers/chaos-faults.js';

let world: ChaosWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('chaos: WebSocket connection resets', () => {
  it('600 messages over 4 conversations, 5 resets: none lost, none twice, none out of order', async () => {
    world = await startChaos({ transport: 'websocket', proxy: true });
    world.proxy!.delay(30);
    const report = await world.run(everyHundred(5, resetFault));
    expectClean(report, 600);
    expect(world.proxy!.stats().resets).toBeGreaterThanOrEqual(5);
  });
});
