/**
 * Ready-made faults for {@link ChaosWorld.run}. Each resolves when the
 * fault is over and the agent can receive again (reconnected, receiver
 * back), so the next fault starts from a working system. Waits are on
 * counts (connections, refusals), never on the clock.
 */
import type { Direction } from './fault-proxy.js';
import type { ChaosWorld, Fault } from './chaos.js';

function proxyOf(world: ChaosWorld) {
  if (world.proxy === undefined) throw new Error('chaos: this fault needs startChaos({ proxy: true })');
  return world.proxy;
}

/** Resets every connection through the proxy (RST both ways), then waits for the agent to reconnect. */
export function resetFault(at: number): Fault {
  return {
    at,
    name: `reset at ${at}`,
    async run(world) {
      const before = world.connects;
      proxyOf(world).reset();
      await world.reconnected(before);
    },
  };
}

/** Options of {@link partitionFault}. */
export interface PartitionFaultOptions {
  /** @defaultValue `'downstream'` (server → agent) */
  readonly direction?: Direction;
  /** Length of the window, ms of real time. @defaultValue `500` */
  readonly ms?: number;
}

/**
 * Drops the bytes of one direction for a short window, then resets the
 * connections (the dead-connection detection of a real partition), then
 * waits for the agent to reconnect.
 */
export function partitionFault(at: number, options: PartitionFaultOptions = {}): Fault {
  const direction = options.direction ?? 'downstream';
  const ms = options.ms ?? 500;
  return {
    at,
    name: `${direction} partition of ${ms} ms at ${at}`,
    async run(world) {
      const before = world.connects;
      await proxyOf(world).partition(direction, ms, { resetAfter: true });
      await world.reconnected(before);
    },
  };
}

/** `server.restart()` with state kept, then waits for the agent to reconnect. */
export function restartFault(at: number, downtimeMs = 40): Fault {
  return {
    at,
    name: `server restart at ${at}`,
    async run(world) {
      const before = world.connects;
      await world.server.restart({ downtimeMs });
      await world.reconnected(before);
    },
  };
}

/** The retry schedule's waits after failures 2 to 7 (the 1st retry is immediate). */
const SCHEDULE_MS = [30_000, 120_000, 480_000, 1_920_000, 7_200_000, 21_600_000] as const;

/**
 * The webhook receiver goes down (the proxy refuses new connections and
 * resets open ones) through `failedSteps` steps of the retry schedule
 * (virtual time), then comes back; time moves on step by step until a
 * connection gets through. Needs `virtualTime` and a proxied webhook.
 */
export function webhookDownFault(at: number, failedSteps = 2): Fault {
  return {
    at,
    name: `webhook receiver down at ${at}`,
    async run(world) {
      const proxy = proxyOf(world);
      const refusedBefore = proxy.stats().refused;
      proxy.refuse(true);
      proxy.reset();
      await world.until(() => proxy.stats().refused > refusedBefore, 'a refused webhook attempt');
      await world.server.control.deliveryIdle(); // the immediate retry failed too: a timer waits
      for (const ms of SCHEDULE_MS.slice(0, failedSteps)) await world.advance(ms);
      const failedAttempts = proxy.stats().refused - refusedBefore;
      const connectedBefore = proxy.stats().connections;
      proxy.refuse(false);
      for (const ms of SCHEDULE_MS.slice(failedSteps)) {
        if (proxy.stats().connections > connectedBefore) break;
        await world.advance(ms);
      }
      if (failedAttempts < failedSteps + 1)
        throw new Error(`chaos: only ${failedAttempts} webhook attempts were refused`);
    },
  };
}

/**
 * Switches the agent's delivery mode the way its owner does: registering
 * the webhook (the server closes the agent's WebSocket with 4013; that
 * agent is closed and the webhook agent takes over), or removing it (a new
 * WebSocket agent connects). Both agents share keys, de-duplication store
 * and recorder.
 */
export function modeSwitchFault(at: number, to: 'webhook' | 'websocket'): Fault {
  return {
    at,
    name: `switch to ${to} at ${at}`,
    async run(world) {
      if (to === 'webhook') {
        const webhookAgent = world.agents.find((a) => a.mode === 'webhook');
        if (webhookAgent === undefined) await world.startAgent('webhook');
        const socketAgent = world.agents.find((a) => a.mode === 'websocket' && a.state !== 'closed');
        await world.setWebhook();
        await socketAgent?.close({ timeoutMs: 2_000 });
      } else {
        const before = world.connects;
        await world.removeWebhook();
        await world.startAgent('websocket');
        await world.reconnected(before);
      }
    },
  };
}
