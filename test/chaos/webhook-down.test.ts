/**
 * Chaos: webhook mode, the agent's receiver down 5 times mid-stream (the
 * proxy in front of it refuses new connections and resets open ones)
 * through the immediate retry and the 30 s and 2 min steps of the retry
 * schedule (virtual time), then back: 600 messages over 4 conversations,
 * each handled exactly once and in order within its conversation.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { everyHundred, expectClean, startChaos, type ChaosWorld } from '../helpers/chaos.js';
import { webhookDownFault } from '../helpers/chaos-faults.js';

let world: ChaosWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe('chaos: webhook receiver down', () => {
  it('600 messages over 4 conversations, receiver down 5 times: none lost, none twice, none out of order', async () => {
    world = await startChaos({ transport: 'webhook', proxy: true, virtualTime: true });
    const report = await world.run(everyHundred(5, (at) => webhookDownFault(at)));
    expectClean(report, 600);
    expect(world.proxy!.stats().refused).toBeGreaterThanOrEqual(5 * 3);
  });
});
