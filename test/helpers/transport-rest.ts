/**
 * Helpers for REST client tests: an undici MockAgent with network access
 * disabled, a fake sleep that records waits and resolves at once, and
 * service-shaped bodies.
 */
import { MockAgent } from 'undici';
import type { SleepFn } from '../../packages/sdk/src/transport/rest/index.js';

/** The origin the mock answers for. */
export const ORIGIN = 'https://api.test';
/** An agent token of the right shape. */
export const TOKEN = 'hsk_' + 'Ab3x'.repeat(10);

/** A MockAgent that refuses real connections, plus its pool for {@link ORIGIN}. */
export function mockService(): { agent: MockAgent; pool: ReturnType<MockAgent['get']> } {
  const agent = new MockAgent();
  agent.disableNetConnect();
  return { agent, pool: agent.get(ORIGIN) };
}

/** A sleep that records each wait and resolves at once. */
export function fakeSleep(): { sleep: SleepFn; waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    sleep: (ms) => {
      waits.push(ms);
      return Promise.resolve();
    },
  };
}

/** The service's error body. */
export function errorBody(code: string, params: Record<string, unknown> = {}): Record<string, unknown> {
  return { error: { code, message: `${code} happened`, i18n_key: `errors.${code.toLowerCase()}`, params } };
}

/** JSON response headers. */
export const JSON_HEADERS = { 'content-type': 'application/json' } as const;

/** A network-level failure like a reset connection. */
export function connectionReset(): Error {
  return Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
}
