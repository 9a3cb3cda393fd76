/**
 * The manifest update queue on a virtual clock, with a scripted REST client:
 * the client-side wait after an accepted update, failFast, maxWaitMs, abort,
 * a service 429 waited out, and the size warning.
 */
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../packages/sdk/src/core/clock.js';
import { RateLimitError } from '../../../../packages/sdk/src/core/errors/rate-limit-error.js';
import { ServiceError } from '../../../../packages/sdk/src/core/errors/service-error.js';
import { ManifestTooLargeError } from '../../../../packages/sdk/src/core/errors/manifest-too-large-error.js';
import { isRateLimitError } from '../../../../packages/sdk/src/core/errors/guards.js';
import { silentLogger } from '../../../../packages/sdk/src/core/logger.js';
import { LIMITS } from '../../../../packages/sdk/src/core/limits.js';
import {
  AgentManifest,
  type AgentWarning,
} from '../../../../packages/sdk/src/agent/capabilities/manifest.js';
import type { RestClient } from '../../../../packages/sdk/src/transport/rest/client.js';
import type { RateLimiter } from '../../../../packages/sdk/src/core/rate-limiter.js';
import { manifestOfSize, sampleManifest } from '../../../fixtures/manifests/manifests.js';

type Answer = () => unknown;

function setup(answers: Answer[] = [], limiter?: RateLimiter) {
  const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
  const sent: unknown[] = [];
  let version = 0;
  const rest = {
    request: async (r: { body: unknown }) => {
      sent.push(r.body);
      const next = answers.shift();
      if (next !== undefined) return next();
      version += 1;
      return {
        version,
        manifest: (r.body as { manifest: unknown }).manifest,
        size_bytes: 1,
        size_warning: false,
        status: 'pending',
        submitted_at: new Date(clock.now()).toISOString(),
        decided_at: null,
      };
    },
  } as unknown as RestClient;
  const warnings: AgentWarning[] = [];
  const manifest = new AgentManifest({
    rest,
    agentId: 'a1',
    clock,
    logger: silentLogger,
    warn: (w) => void warnings.push(w),
    onEvent: () => () => undefined,
    ...(limiter === undefined ? {} : { limiter }),
  });
  return { clock, sent, manifest, warnings };
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

describe('AgentManifest queue', () => {
  it('waits a minute after an accepted update, then sends', async () => {
    const { clock, sent, manifest } = setup();
    await manifest.update(sampleManifest(), { basedOnVersion: 0 });
    let done = false;
    const second = manifest.update(sampleManifest('1.0.1'), { basedOnVersion: 1 }).then((r) => {
      done = true;
      return r;
    });
    await tick();
    expect(sent).toHaveLength(1);
    clock.advance(LIMITS.MANIFEST_UPDATE_WINDOW_MS - 1);
    await tick();
    expect(done).toBe(false);
    clock.advance(1);
    expect((await second).version).toBe(2);
    expect(sent).toHaveLength(2);
  });

  it('takes the shared manifests limiter (rateLimiters.manifests) before each request (#25)', async () => {
    const gates: (() => void)[] = [];
    const signals: (AbortSignal | undefined)[] = [];
    const limiter: RateLimiter = {
      acquire: (signal) => {
        signals.push(signal);
        return new Promise<void>((resolve) => gates.push(resolve));
      },
      get pending() {
        return gates.length;
      },
    };
    const { sent, manifest } = setup([], limiter);
    const controller = new AbortController();
    const first = manifest.update(sampleManifest(), { basedOnVersion: 0, signal: controller.signal });
    await tick();
    // A sibling copy holds the shared minute: no request until the limiter admits this one.
    expect(sent).toHaveLength(0);
    expect(signals).toEqual([controller.signal]);
    gates.shift()!();
    expect((await first).version).toBe(1);
    expect(sent).toHaveLength(1);
  });

  it('failFast and maxWaitMs refuse inside the minute without a request', async () => {
    const { sent, manifest } = setup();
    await manifest.update(sampleManifest(), { basedOnVersion: 0 });
    for (const o of [{ failFast: true }, { maxWaitMs: 1000 }]) {
      const err = await manifest
        .update(sampleManifest(), { basedOnVersion: 1, ...o })
        .catch((e: unknown) => e);
      expect(isRateLimitError(err, 'MANIFEST_UPDATE_RATE_LIMITED')).toBe(true);
      expect((err as RateLimitError).retryAfterMs).toBe(LIMITS.MANIFEST_UPDATE_WINDOW_MS);
    }
    expect(sent).toHaveLength(1);
  });

  it('an abort while queued rejects with the reason; the queue goes on', async () => {
    const { clock, manifest } = setup();
    await manifest.update(sampleManifest(), { basedOnVersion: 0 });
    const ac = new AbortController();
    const aborted = manifest.update(sampleManifest(), { basedOnVersion: 1, signal: ac.signal });
    ac.abort(new Error('stop'));
    await expect(aborted).rejects.toThrow('stop');
    const next = manifest.update(sampleManifest(), { basedOnVersion: 1 });
    clock.advance(LIMITS.MANIFEST_UPDATE_WINDOW_MS);
    expect((await next).version).toBe(2);
  });

  it('a service 429 is waited out for its Retry-After; one longer than maxWaitMs surfaces', async () => {
    const limited = (ms: number) => () => {
      throw new RateLimitError({
        code: 'MANIFEST_UPDATE_RATE_LIMITED',
        status: 429,
        message: 'x',
        retryAfterMs: ms,
      });
    };
    const a = setup([limited(30_000)]);
    const queued = a.manifest.update(sampleManifest(), { basedOnVersion: 0 });
    await tick();
    a.clock.advance(30_000);
    expect((await queued).version).toBe(1);
    expect(a.sent).toHaveLength(2);

    const b = setup([limited(600_000)]);
    const err = await b.manifest.update(sampleManifest(), { basedOnVersion: 0 }).catch((e: unknown) => e);
    expect(isRateLimitError(err, 'MANIFEST_UPDATE_RATE_LIMITED')).toBe(true);
    expect(b.sent).toHaveLength(1);
  });

  it('raises one warning for a manifest of 64 KB and above, none below', async () => {
    const { manifest, warnings } = setup();
    await manifest.update(sampleManifest(), { basedOnVersion: 0, failFast: true });
    expect(warnings).toEqual([]);
    await manifest
      .update(manifestOfSize(LIMITS.MANIFEST_WARN_BYTES), { basedOnVersion: 1, failFast: true })
      .catch(() => undefined);
    expect(warnings.map((w) => w.code)).toEqual(['MANIFEST_SIZE_WARNING']);
  });

  it("the service's 413 becomes a ManifestTooLargeError with its size (clientSide false)", async () => {
    const { manifest } = setup([
      () => {
        throw new ServiceError({
          code: 'MANIFEST_TOO_LARGE',
          status: 413,
          message: 'x',
          params: { size_bytes: 200_000, max_bytes: 131_072 },
        });
      },
    ]);
    const err = await manifest.update(sampleManifest(), { basedOnVersion: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManifestTooLargeError);
    expect(err).toMatchObject({ sizeBytes: 200_000, clientSide: false, status: 413 });
  });
});
