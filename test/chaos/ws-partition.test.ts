/**
 * Chaos: WebSocket mode through the fault proxy, 5 partitions mid-stream:
 * the server's frames are dropped for 500 ms, then the connection is reset
 * (the dead-connection detection of a real partition): 600 messages over 4
 * conversations (each sender pausing 25 ms between messages, so traffic
 * flows between partitions too), each handled exactly once and in order
 * within its conversation.
 *
 * Before acknowledged delivery, 145–277 of 600 were lost: frames written
 * into the partition counted as delivered and were never sent again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { everyHundred, expectClean, startChaos, type ChaosWorld } from '../helpers/chaos.js';
import { partitionFault } from '../helpers/chaos-faults.js';

let world: ChaosWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('chaos: WebSocket partitions', () => {
  it('600 messages over 4 conversations, 5 downstream partitions of 500 ms then a reset: none lost, none twice, none out of order', async () => {
    world = await startChaos({ transport: 'websocket', proxy: true, paceMs: 25 });
    const report = await world.run(everyHundred(5, (at) => partitionFault(at)));
    expectClean(report, 600);
    expect(world.proxy!.stats().resets).toBeGreaterThanOrEqual(5);
  });
});
