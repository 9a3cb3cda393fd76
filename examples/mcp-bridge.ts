/**
 * The MCP bridge (docs/mcp.md) in one process, no network beyond loopback:
 * a reference server with a user (the owner) and an agent (the testing kit),
 * the bridge's MCP server and an MCP client joined by the MCP SDK's in-memory
 * transport, as a coding agent would use them through `ams mcp`:
 *
 * 1. the client lists the tools;
 * 2. `notify_owner`: the owner reads a message;
 * 3. `ask_owner` with a form: the owner fills it in, the client gets the answer;
 * 4. `wait_for_reply`: the owner writes, the client gets the text;
 * 5. elicitation, the other way round: the agent is an MCP *client* of some
 *    server that asks for input (`elicitation/create`); the handler forwards
 *    the request to the owner as a form and returns their answer.
 *
 *   npx tsx examples/mcp-bridge.ts
 *
 * Everything the owner sees travels end-to-end encrypted; the service relays ciphertext.
 */
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createTestWorld } from '@agent-messaging/dev/testing';
import { createElicitationHandler, createMcpServer } from 'agent-messaging-sdk/mcp';

/** Runs the walk-through; each step is one line given to `say`. */
export async function mcpBridgeDemo(say: (line: string) => void = console.log): Promise<void> {
  const world = await createTestWorld(); // a reference server, the owner and their agent, connected
  try {
    // The owner's side: print what arrives, fill in the form.
    world.user.on('message', (m) => {
      if (m.payload.type === 'text') say(`owner reads: ${String(m.payload.text)}`);
    });
    world.user.on('artifact', (a) => {
      say(`owner is asked: ${a.content.title}`);
      if (a.content.title === 'Where should I push it?') void a.approve({ branch: 'main', run_e2e: true });
      else void a.approve({ environment: 'staging' });
    });

    // The bridge and an MCP client, joined in memory.
    // #region server
    const server = createMcpServer({ agent: world.agent });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide); // `ams mcp` connects a StdioServerTransport instead
    const client = new Client({ name: 'coding-agent', version: '1.0.0' });
    await client.connect(clientSide);
    // #endregion server
    const call = async (name: string, args: Record<string, unknown>) =>
      (await client.callTool({ name, arguments: args })) as CallToolResult;

    const { tools } = await client.listTools();
    say(`tools: ${tools.map((t) => t.name).join(', ')}`);

    await call('notify_owner', { text: 'The refactor is done: 14 files changed, tests green.' });

    const asked = await call('ask_owner', {
      question: 'Where should I push it?',
      fields: [
        { name: 'branch', label: 'Branch', type: 'text', required: true },
        { name: 'run_e2e', label: 'Run the end-to-end tests?', type: 'boolean' },
      ],
    });
    say(`client gets: ${JSON.stringify(asked.structuredContent)}`);

    const waiting = call('wait_for_reply', { timeout_seconds: 30 });
    await world.sendAsUser('Thanks! Ping me when CI is done.');
    const reply = await waiting;
    say(`client gets the reply: ${JSON.stringify(reply.structuredContent?.['text'])}`);

    await client.close();

    // 5. The agent as an MCP client: a server's elicitation goes to the owner as a form.
    // #region elicitation
    const agentAsClient = new Client(
      { name: 'my-agent', version: '1.0.0' },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    agentAsClient.setRequestHandler(ElicitRequestSchema, createElicitationHandler({ agent: world.agent }));
    // #endregion elicitation
    const deployServer = new Server({ name: 'deploy-server', version: '1.0.0' }, { capabilities: {} });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await deployServer.connect(b);
    await agentAsClient.connect(a);
    const elicited = await deployServer.elicitInput({
      message: 'Deploy to which environment?',
      requestedSchema: {
        type: 'object',
        properties: { environment: { type: 'string', enum: ['staging', 'production'] } },
        required: ['environment'],
      },
    });
    say(`server gets: ${JSON.stringify(elicited)}`);
    await agentAsClient.close();
  } finally {
    await world.close();
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await mcpBridgeDemo();
}
