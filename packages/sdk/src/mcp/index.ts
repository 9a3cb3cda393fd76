/**
 * `agent-messaging-sdk/mcp`: the Model Context Protocol bridge
 * (docs/mcp.md). Needs `@modelcontextprotocol/sdk` 1.x, an optional peer
 * dependency installed only by those who use this entry.
 *
 * - {@link createMcpServer}: an MCP server whose tools (`notify_owner`,
 *   `ask_owner`, `wait_for_reply`, `send_file`) let an MCP client, such as a
 *   coding agent, reach the agent's owner end to end encrypted. `ams mcp`
 *   runs it over stdio.
 * - {@link createElicitationHandler}: for an MCP client, forwards a server's
 *   `elicitation/create` requests to the owner as artifacts.
 *
 * @example
 * ```ts
 * import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { createMcpServer } from 'agent-messaging-sdk/mcp';
 *
 * const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
 * await createMcpServer({ agent }).connect(serverSide);
 * const client = new Client({ name: 'demo', version: '1.0.0' });
 * await client.connect(clientSide);
 * await client.callTool({ name: 'notify_owner', arguments: { text: 'build is green' } });
 * ```
 *
 * @module mcp
 */
export {
  createMcpServer,
  DEFAULT_TOOL_TIMEOUT_MS,
  MAX_TOOL_TIMEOUT_MS,
  MCP_TOOL_NAMES,
  NOTIFY_MAX_CHARS,
  type McpServerOptions,
} from './server.js';
export {
  createElicitationHandler,
  DEFAULT_ELICITATION_TIMEOUT_MS,
  elicitationToArtifact,
  type ElicitationArtifact,
  type ElicitationHandler,
  type ElicitationHandlerOptions,
  type ElicitParams,
  type ElicitValue,
} from './elicitation.js';
export { OWNER_INBOX_MAX, type OwnerMessage } from './owner.js';
