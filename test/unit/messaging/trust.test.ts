/**
 * The trust parts both clients build: the policy reaches pins and the member
 * watch, each change is emitted and logged (ids only), and both clients
 * refuse an unknown policy.
 */
import { describe, expect, it } from 'vitest';
import type { PeerKeys } from '../../../packages/sdk/src/messaging/key-directory.js';
import { resolveAgentOptions } from '../../../packages/sdk/src/agent/options.js';
import { trustParts } from '../../../packages/sdk/src/messaging/trust.js';
import { resolveUserClientOptions } from '../../../packages/sdk/src/client/options.js';
import { isConfigurationError, isCryptoError } from '../../../packages/sdk/src/core/errors/index.js';
import { recordingLogger } from '../../helpers/agent-world.js';

const peer = (n: number): PeerKeys => ({
  id: 'a1',
  kind: 'agent',
  signing: undefined,
  encryption: new Uint8Array(32).fill(n),
  retired: [],
});

describe('trustParts', () => {
  it('emits and logs keyChanged and membersChanged', async () => {
    const log = recordingLogger();
    const seen: string[] = [];
    const { pins, members } = trustParts({}, log, {
      keyChanged: (e) => seen.push(`key ${e.peerId}`),
      membersChanged: (e) => seen.push(`members ${e.conversationId} +${e.added.join()}`),
    });
    await pins.check(peer(1));
    await pins.check(peer(2));
    members.observe('c1', ['u1']);
    members.observe('c1', ['u1', 'ghost']);
    expect(seen).toEqual(['key a1', 'members c1 +ghost']);
    expect(log.lines.filter((l) => l.startsWith('warn'))).toHaveLength(2);
  });

  it("passes 'block' to both", async () => {
    const { pins, members } = trustParts({ keyChangePolicy: 'block' }, recordingLogger(), {
      keyChanged: () => undefined,
      membersChanged: () => undefined,
    });
    await pins.check(peer(1));
    expect(isCryptoError(await pins.check(peer(2)).catch((e: unknown) => e), 'KEY_CHANGED')).toBe(true);
    members.observe('c1', ['u1']);
    expect(() => members.observe('c1', ['u1', 'ghost'])).toThrow(/confirmMembers/);
  });

  it('an unknown keyChangePolicy is a ConfigurationError in both clients', () => {
    const agent = () =>
      resolveAgentOptions({
        baseUrl: 'https://api.example.com',
        agentId: 'a1',
        token: `hsk_${'a'.repeat(40)}`,
        keyChangePolicy: 'ignore' as never,
      });
    const user = () =>
      resolveUserClientOptions({ baseUrl: 'https://api.example.com', keyChangePolicy: 'ignore' as never });
    for (const fn of [agent, user]) {
      let caught: unknown;
      try {
        fn();
      } catch (err) {
        caught = err;
      }
      expect(isConfigurationError(caught)).toBe(true);
      expect((caught as Error).message).toContain('keyChangePolicy');
    }
  });
});
