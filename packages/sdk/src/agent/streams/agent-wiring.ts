/**
 * Builds an Agent's {@link AgentStreams} from its options: a REST client of
 * its own that never retries (a stream request is not repeated), the key
 * directory, the member watch (streams are refused or reported like
 * `send()` when the conversation gained a member), and the WebSocket once
 * connected.
 *
 * @module
 */
import type { KeyRing } from '../../crypto/key-store/key-ring.js';
import { createRestClient } from '../../transport/rest/client.js';
import type { KeyDirectory } from '../../messaging/key-directory.js';
import type { MemberWatch } from '../../messaging/member-watch.js';
import type { ResolvedAgentOptions } from '../options.js';
import { AgentStreams } from './agent-streams.js';
import type { FrameSocket } from './ws-transport.js';

/** What the streams need from the Agent's state. */
export interface AgentStreamHooks {
  token(): string;
  ring(): Promise<KeyRing>;
  socket(): FrameSocket | undefined;
}

/** The streams of an Agent. */
export function createAgentStreams(
  o: ResolvedAgentOptions,
  directory: KeyDirectory,
  hooks: AgentStreamHooks,
  members?: Pick<MemberWatch, 'observe'>,
): AgentStreams {
  const src = o.source;
  const rest = createRestClient({
    baseUrl: o.baseUrl,
    credentials: () => hooks.token(),
    clock: o.clock,
    logger: o.logger,
    ...(src.dispatcher === undefined ? {} : { dispatcher: src.dispatcher }),
    retry: { maxAttempts: 1 },
    rateLimits: false,
  });
  return new AgentStreams({
    agentId: o.agentId,
    mode: o.mode,
    clock: o.clock,
    directory,
    ring: () => hooks.ring(),
    socket: () => hooks.socket(),
    rest,
    backend: src.backend,
    members,
  });
}
