/**
 * Helpers of the stream integration tests: a world with the user connected
 * and every stream event recorded, and waiting for one.
 */
import type {
  StreamDelta,
  StreamEnded,
  StreamFailure,
  StreamStarted,
} from '../../../packages/sdk/src/client/index.js';
import {
  createTestWorld,
  type TestWorld,
  type TestWorldOptions,
} from '../../../packages/dev/src/testing/index.js';

/** Every stream event the user received, in order. */
export interface StreamLog {
  readonly starts: StreamStarted[];
  readonly deltas: StreamDelta[];
  readonly ends: StreamEnded[];
  readonly errors: StreamFailure[];
}

/** A world whose user is connected over WebSocket, with its stream events recorded. */
export async function streamWorld(
  options: TestWorldOptions = {},
): Promise<{ world: TestWorld; log: StreamLog }> {
  const world = await createTestWorld(options);
  const log: StreamLog = { starts: [], deltas: [], ends: [], errors: [] };
  world.user.on('streamStart', (e) => log.starts.push(e));
  world.user.on('streamDelta', (e) => log.deltas.push(e));
  world.user.on('streamEnd', (e) => log.ends.push(e));
  world.user.on('streamError', (e) => log.errors.push(e));
  await world.user.connect();
  return { world, log };
}

/** Polls `check` until it returns a value (real time). */
export async function until<T>(check: () => T | undefined, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
