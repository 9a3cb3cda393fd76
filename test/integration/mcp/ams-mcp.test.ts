/**
 * `ams mcp` spawned once, as an MCP client (a coding agent) runs it: the
 * MCP SDK's stdio client starts the real bin, lists the tools and calls
 * `notify_owner`; the owner (a test world's user) reads the text. Standard
 * output carries JSON-RPC only: a line that is not would be a transport error.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestWorld, type TestWorld } from '@agent-messaging/dev/testing';
import type { ReceivedMessage } from 'agent-messaging-sdk';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const BIN = join(ROOT, 'packages', 'dev', 'src', 'cli', 'index.ts');

let world: TestWorld;
let keyDir: string;
beforeAll(async () => {
  world = await createTestWorld({ agents: 0 });
  keyDir = mkdtempSync(join(tmpdir(), 'ams-mcp-'));
});
afterAll(async () => {
  await world?.close();
  rmSync(keyDir, { recursive: true, force: true });
});

describe('ams mcp (spawned, over stdio)', () => {
  it('lists the tools and notifies the owner; stdout carries JSON-RPC only', async () => {
    const { agentId, token } = await world.server.control.createAgent({
      ownerId: world.user.session!.userId,
      name: 'Coding agent',
    });
    const transport = new StdioClientTransport({
      command: TSX,
      args: [BIN, 'mcp'],
      cwd: ROOT,
      stderr: 'pipe',
      env: {
        ...(process.env as Record<string, string>),
        AMS_BASE_URL: world.server.url,
        AMS_AGENT_ID: agentId,
        AMS_AGENT_TOKEN: token,
        AMS_KEY_DIR: keyDir,
      },
    });
    let stderr = '';
    transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const transportErrors: Error[] = [];
    const client = new Client({ name: 'coding-agent', version: '1.0.0' });
    try {
      await client.connect(transport);
      client.onerror = (err) => transportErrors.push(err);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual([
        'ask_owner',
        'notify_owner',
        'send_file',
        'wait_for_reply',
      ]);

      const received: ReceivedMessage[] = [];
      world.user.on('message', (m) => void received.push(m));
      await world.user.addAgent(agentId); // the owner's conversation with the agent
      const r = (await client.callTool({
        name: 'notify_owner',
        arguments: { text: 'tests pass on branch mcp' },
      })) as CallToolResult;
      expect(r.isError, JSON.stringify(r.content)).toBeUndefined();
      const got = await vi.waitFor(
        () => {
          const m = received.find((x) => x.senderId === agentId);
          if (m === undefined) throw new Error('not yet');
          return m;
        },
        { timeout: 10_000, interval: 20 },
      );
      expect(got.payload).toEqual({ type: 'text', text: 'tests pass on branch mcp' });
      expect(stderr).toContain(`ams mcp: serving agent ${agentId} on stdio`);
      expect(transportErrors).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
