/**
 * `ams mcp`: runs the MCP bridge (`agent-messaging-sdk/mcp`, docs/mcp.md)
 * over stdio, as the agent of the env lines `ams dev bootstrap` prints, so
 * an MCP client (a coding agent) reaches the agent's owner end to end
 * encrypted. Standard output carries JSON-RPC only; logs go to stderr.
 *
 * @module
 */
import { Console } from 'node:console';
import { join } from 'node:path';
import type * as Stdio from '@modelcontextprotocol/sdk/server/stdio.js';
import { Agent } from 'agent-messaging-sdk';
import type * as McpBridge from 'agent-messaging-sdk/mcp';
import { FileKeyStore } from 'agent-messaging-sdk/crypto';
import { consoleLogger } from 'agent-messaging-sdk/protocol';
import { EXIT, intOf, required, stringOf } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import { envValue, type CliIo } from '../io.js';
import { baseUrlOf, DEFAULT_BASE_URL } from '../rest.js';
import { DEFAULT_KEY_DIR } from './keygen.js';

/** Help text of `ams mcp`. */
export const MCP_HELP = `Usage: ams mcp [--agent-id ID] [--base-url URL] [--key-dir DIR]
               [--conversation ID] [--timeout S]

Runs an MCP server over stdio (for an MCP client such as a coding agent)
whose tools reach the agent's owner, end to end encrypted: notify_owner,
ask_owner, wait_for_reply, send_file (docs/mcp.md). Connects as the agent
of the env lines 'ams dev bootstrap' printed (AMS_BASE_URL, AMS_AGENT_ID,
AMS_AGENT_TOKEN, AMS_KEY_DIR) until the client closes standard input.
Standard output carries JSON-RPC only; logs go to standard error.
Needs @modelcontextprotocol/sdk 1.x installed beside the SDK.

Options:
  --agent-id ID        The agent's id (default $AMS_AGENT_ID)
  --base-url URL       Service (default $AMS_BASE_URL, else ${DEFAULT_BASE_URL})
  --key-dir DIR        Key root: the agent's keys are DIR/<agent id>
                       (default $AMS_KEY_DIR, else ${DEFAULT_KEY_DIR})
  --conversation ID    The conversation with the owner (default: the agent's
                       one-to-one conversation with the user who owns it)
  --timeout S          Default wait of ask_owner and wait_for_reply, seconds
                       (default 300)
  -h, --help           Show this help

The agent token is read from $AMS_AGENT_TOKEN only (arguments show in ps).
Exit status: 0 after the client closed the session, 1 failure, 2 usage error.
`;

/** The bridge and the MCP SDK's stdio transport, or a one-line reason they cannot load. */
async function loadBridge(): Promise<{
  mcp: typeof McpBridge;
  stdio: typeof Stdio;
}> {
  try {
    const [mcp, stdio] = await Promise.all([
      import('agent-messaging-sdk/mcp'),
      import('@modelcontextprotocol/sdk/server/stdio.js'),
    ]);
    return { mcp, stdio };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new Error(
        'ams mcp needs the MCP SDK: npm install @modelcontextprotocol/sdk@1 (an optional peer dependency)',
        { cause: err },
      );
    }
    throw err;
  }
}

/** The `ams mcp` command. */
export const mcpCommand: CommandSpec = {
  name: 'mcp',
  help: MCP_HELP,
  options: {
    'agent-id': { type: 'string' },
    'base-url': { type: 'string' },
    'key-dir': { type: 'string' },
    conversation: { type: 'string' },
    timeout: { type: 'string' },
  },
  async run(values, io) {
    const agentId = required(
      stringOf(values, 'agent-id') ?? envValue(io, 'AMS_AGENT_ID'),
      '--agent-id (or AMS_AGENT_ID)',
    );
    const token = required(envValue(io, 'AMS_AGENT_TOKEN'), 'AMS_AGENT_TOKEN');
    const baseUrl = baseUrlOf(io, stringOf(values, 'base-url'));
    const keyDir = stringOf(values, 'key-dir') ?? envValue(io, 'AMS_KEY_DIR') ?? DEFAULT_KEY_DIR;
    const timeoutS = intOf(stringOf(values, 'timeout'), '--timeout', 1, 3600);
    const conversationId = stringOf(values, 'conversation');
    const { mcp, stdio } = await loadBridge();

    // Nothing but JSON-RPC on stdout: the SDK logs to stderr, and so does anything else that logs.
    const errConsole = new Console({ stdout: process.stderr, stderr: process.stderr });
    globalThis.console.log = errConsole.log.bind(errConsole);
    globalThis.console.info = errConsole.info.bind(errConsole);
    globalThis.console.debug = errConsole.debug.bind(errConsole);
    const agent = new Agent({
      baseUrl,
      agentId,
      token,
      keyStore: new FileKeyStore({ directory: join(keyDir, agentId) }),
      logger: consoleLogger({ console: errConsole }),
      shutdownSignals: false,
    });
    await agent.connect();
    const server = mcp.createMcpServer({
      agent,
      ...(conversationId === undefined ? {} : { conversationId }),
      ...(timeoutS === undefined ? {} : { defaultTimeoutMs: timeoutS * 1000 }),
    });
    const ended = new Promise<void>((resolve) => {
      const previous = server.server.onclose;
      server.server.onclose = () => {
        previous?.();
        resolve();
      };
      process.stdin.once('end', () => resolve());
      process.once('SIGINT', () => resolve());
      process.once('SIGTERM', () => resolve());
    });
    await server.connect(new stdio.StdioServerTransport());
    io.stderr.write(`ams mcp: serving agent ${agentId} on stdio (close standard input to stop)\n`);
    await ended;
    await server.close().catch(() => {});
    await agent.close({ timeoutMs: 5000 });
    return EXIT.ok;
  },
};

/** Runs `ams mcp`. */
export function runMcp(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(mcpCommand, argv, io);
}
