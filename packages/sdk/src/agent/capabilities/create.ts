/**
 * Builds `agent.manifest` and `agent.grants` from the Agent's parts.
 *
 * @module
 */
import type { ResolvedAgentOptions } from '../options.js';
import type { AgentParts } from '../parts.js';
import type { AnyAgentEvent } from '../events.js';
import { AgentGrants } from './grants.js';
import { AgentManifest } from './manifest.js';

/** The capability parts of an Agent. */
export function createAgentCapabilities(
  o: ResolvedAgentOptions,
  parts: AgentParts,
): { readonly manifest: AgentManifest; readonly grants: AgentGrants } {
  const onEvent = (listener: (event: AnyAgentEvent) => void): (() => void) => {
    parts.emitter.on('event', listener);
    return () => parts.emitter.off('event', listener);
  };
  const rest = parts.api.rest;
  return {
    manifest: new AgentManifest({
      rest,
      agentId: o.agentId,
      clock: o.clock,
      logger: o.logger,
      warn: (warning) => parts.emitter.emit('warning', warning),
      onEvent,
      ...(o.source.rateLimiters?.manifests === undefined ? {} : { limiter: o.source.rateLimiters.manifests }),
    }),
    grants: new AgentGrants({ rest, agentId: o.agentId, onEvent }),
  };
}
