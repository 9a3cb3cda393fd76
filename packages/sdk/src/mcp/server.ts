/**
 * An MCP server whose tools reach the agent's owner (a human on the
 * service), end to end encrypted: `notify_owner`, `ask_owner`,
 * `wait_for_reply`, `send_file`. Everything the owner sees travels sealed
 * through the SDK (messages, artifacts, files); the bridge only maps.
 *
 * @module
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
// A namespace import (tree-shaken like src/core/lazy-zod.ts), of zod's real schemas: the MCP SDK walks
// their internals to write the tools' JSON schemas, which the lazy stand-ins do not survive.
import * as z from 'zod';
import type { Agent } from '../index.js';
import {
  ConfigurationError,
  systemClock,
  TimeoutError,
  type ArtifactContent,
  type Clock,
} from '../protocol.js';
import { askOwner } from './ask.js';
import { OwnerChannel } from './owner.js';

/** Default wait of `ask_owner` and `wait_for_reply` when a call names none: 5 minutes. */
export const DEFAULT_TOOL_TIMEOUT_MS = 5 * 60_000;
/** Longest wait a call may ask for, by default: 1 hour. */
export const MAX_TOOL_TIMEOUT_MS = 60 * 60_000;
/** Longest `notify_owner` text, in characters. */
export const NOTIFY_MAX_CHARS = 32_000;

/** Names of the tools, as MCP clients list them. */
export const MCP_TOOL_NAMES = ['notify_owner', 'ask_owner', 'wait_for_reply', 'send_file'] as const;

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** The agent the tools act as. Connect it (WebSocket mode) so the owner's replies arrive. */
  readonly agent: Agent;
  /** The conversation with the owner. @defaultValue the agent's one-to-one conversation with its owner */
  readonly conversationId?: string;
  /** Time of the waits. @defaultValue `systemClock` */
  readonly clock?: Clock;
  /** Wait of `ask_owner` and `wait_for_reply` when a call names none. @defaultValue 5 minutes */
  readonly defaultTimeoutMs?: number;
  /** Longest wait a call may ask for (`timeout_seconds`). @defaultValue 1 hour */
  readonly maxTimeoutMs?: number;
  /** The server's name and version in the MCP handshake. @defaultValue `agent-messaging-sdk` and the SDK's version */
  readonly serverInfo?: { readonly name: string; readonly version: string };
}

const INSTRUCTIONS =
  'These tools reach your owner, a human, over an end-to-end encrypted messaging service. ' +
  'notify_owner tells them something; ask_owner asks a yes/no question or a short form and waits for the answer; ' +
  'wait_for_reply waits for their next message; send_file sends them a file.';

const ok = (value: Readonly<Record<string, unknown>>, text: string): CallToolResult => ({
  content: [{ type: 'text', text }],
  structuredContent: { ...value },
});
const failed = (text: string): CallToolResult => ({ content: [{ type: 'text', text }], isError: true });

const FieldSchema = z.object({
  name: z
    .string()
    .regex(/^[a-z][a-z0-9_]{0,63}$/)
    .describe('Key of the answer: lower-case letters, digits and _'),
  label: z.string().min(1).max(200).describe('What the owner reads'),
  type: z.enum(['text', 'number', 'boolean', 'choice']),
  required: z.boolean().optional(),
  options: z
    .array(z.string().min(1).max(200))
    .min(1)
    .max(100)
    .optional()
    .describe('The choices of a choice field'),
});

/**
 * Creates an MCP server (`@modelcontextprotocol/sdk`'s `McpServer`) whose
 * tools reach the agent's owner. Connect it to a transport (stdio for a
 * local MCP client: `ams mcp` does that); closing the server stops listening
 * to the agent (the agent itself stays yours to close).
 *
 * | Tool | Does | Returns |
 * |---|---|---|
 * | `notify_owner` | sends `text` | `{ messageId }` |
 * | `ask_owner` | sends a confirmation (no `fields`) or a form artifact, waits | `{ status: 'approved', answer }` or `{ status: 'denied', reason }`; no answer in time → a tool error |
 * | `wait_for_reply` | the owner's oldest unread message, or the next within the timeout | `{ messageId, text, type, createdAt }`; none in time → a tool error |
 * | `send_file` | sends a file (`content` as UTF-8 text or base64) | `{ messageId, name, size }` |
 *
 * @throws {@link ConfigurationError} for a timeout option that is not a positive number of ms.
 * @example
 * ```ts
 * import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
 * import { createMcpServer } from 'agent-messaging-sdk/mcp';
 *
 * await agent.connect();
 * const server = createMcpServer({ agent });
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const { agent } = options;
  const clock = options.clock ?? systemClock;
  const defaultMs = options.defaultTimeoutMs ?? DEFAULT_TOOL_TIMEOUT_MS;
  const maxMs = options.maxTimeoutMs ?? MAX_TOOL_TIMEOUT_MS;
  for (const [name, v] of [
    ['defaultTimeoutMs', defaultMs],
    ['maxTimeoutMs', maxMs],
  ] as const) {
    if (!Number.isFinite(v) || v <= 0) {
      throw new ConfigurationError({
        message: `${name} must be a positive number of milliseconds`,
        option: name,
      });
    }
  }
  const owner = new OwnerChannel({ agent, conversationId: options.conversationId, clock });
  const server = new McpServer(options.serverInfo ?? { name: 'agent-messaging-sdk', version: '0.2.0' }, {
    instructions: INSTRUCTIONS,
  });
  server.server.onclose = () => owner.close();
  const waitOf = (seconds: number | undefined): number =>
    Math.min(seconds === undefined ? defaultMs : seconds * 1000, maxMs);
  const timeoutSeconds = z
    .number()
    .int()
    .min(1)
    .max(Math.max(1, Math.floor(maxMs / 1000)))
    .optional()
    .describe(`Seconds to wait (default ${Math.round(defaultMs / 1000)})`);

  server.registerTool(
    'notify_owner',
    {
      title: 'Notify the owner',
      description: 'Send a text message to your owner (a human). Does not wait for an answer.',
      inputSchema: { text: z.string().min(1).max(NOTIFY_MAX_CHARS) },
      annotations: { openWorldHint: true, readOnlyHint: false, destructiveHint: false },
    },
    async ({ text }, extra) => {
      const sent = await agent.send(await owner.conversationId(), text, { signal: extra.signal });
      return ok({ messageId: sent.messageId }, `Sent to the owner (message ${sent.messageId}).`);
    },
  );

  server.registerTool(
    'ask_owner',
    {
      title: 'Ask the owner',
      description:
        'Ask your owner (a human) a yes/no question, or to fill in a short form (give fields), and wait for the answer. ' +
        'An answer of "no" is a normal result (status denied); no answer in time is an error.',
      inputSchema: {
        question: z.string().min(1).max(200).describe('The question or the form title'),
        details: z.string().max(4000).optional().describe('More text shown with the question'),
        fields: z.array(FieldSchema).min(1).max(50).optional().describe('A form instead of yes/no'),
        timeout_seconds: timeoutSeconds,
      },
      annotations: { openWorldHint: true, readOnlyHint: false, destructiveHint: false },
    },
    async ({ question, details, fields, timeout_seconds }, extra) => {
      const conversationId = await owner.conversationId();
      let content: ArtifactContent;
      if (fields === undefined) {
        content = { kind: 'confirm', title: question, ...(details === undefined ? {} : { body: details }) };
      } else {
        // A form has no body: the details go first, as a message.
        if (details !== undefined) await agent.send(conversationId, details, { signal: extra.signal });
        content = {
          kind: 'form',
          title: question,
          fields: fields.map((f) => ({
            name: f.name,
            label: f.label,
            input: f.type,
            ...(f.required === undefined ? {} : { required: f.required }),
            ...(f.options === undefined ? {} : { options: f.options }),
          })),
        };
      }
      const timeoutMs = waitOf(timeout_seconds);
      try {
        const outcome = await askOwner({
          agent,
          conversationId,
          content,
          timeoutMs,
          clock,
          signal: extra.signal,
        });
        if (outcome.status === 'approved') {
          return ok(
            { status: 'approved', answer: { ...outcome.data } },
            `The owner approved.${fields === undefined ? '' : ` Answer: ${JSON.stringify(outcome.data)}`}`,
          );
        }
        if (outcome.status === 'denied') {
          if (outcome.by === 'user') {
            return ok(
              { status: 'denied', reason: outcome.reason },
              `The owner declined (${outcome.reason}).`,
            );
          }
          return failed(`The question was closed by the service without an answer (${outcome.reason}).`);
        }
        return failed('The question expired without an answer.');
      } catch (err) {
        if (err instanceof TimeoutError) {
          return failed(`No answer from the owner within ${Math.round(timeoutMs / 1000)} s.`);
        }
        throw err;
      }
    },
  );

  server.registerTool(
    'wait_for_reply',
    {
      title: 'Wait for the owner',
      description:
        "Wait for your owner's next message (the oldest one not yet returned, if any arrived since). " +
        'No message in time is an error; call again to keep waiting.',
      inputSchema: { timeout_seconds: timeoutSeconds },
      annotations: { openWorldHint: true, readOnlyHint: true },
    },
    async ({ timeout_seconds }, extra) => {
      await owner.conversationId(); // fails early, with the reason, when there is no owner's conversation
      const timeoutMs = waitOf(timeout_seconds);
      try {
        const m = await owner.nextMessage(timeoutMs, extra.signal);
        return ok({ ...m }, m.text);
      } catch (err) {
        if (err instanceof TimeoutError) {
          return failed(`No message from the owner within ${Math.round(timeoutMs / 1000)} s.`);
        }
        throw err;
      }
    },
  );

  server.registerTool(
    'send_file',
    {
      title: 'Send a file to the owner',
      description:
        'Send a file to your owner, encrypted end to end. content is UTF-8 text, or base64 with encoding base64.',
      inputSchema: {
        name: z.string().min(1).max(255),
        content: z.string(),
        encoding: z.enum(['utf8', 'base64']).optional().describe('Default utf8'),
        content_type: z
          .string()
          .min(1)
          .max(255)
          .optional()
          .describe('Default text/plain for utf8, else application/octet-stream'),
      },
      annotations: { openWorldHint: true, readOnlyHint: false, destructiveHint: false },
    },
    async ({ name, content, encoding, content_type }, extra) => {
      const base64 = encoding === 'base64';
      if (base64 && !/^[A-Za-z0-9+/]*={0,2}$/.test(content)) return failed('content is not valid base64.');
      const bytes = base64
        ? new Uint8Array(Buffer.from(content, 'base64'))
        : new TextEncoder().encode(content);
      const contentType = content_type ?? (base64 ? 'application/octet-stream' : 'text/plain');
      const sent = await agent.files.upload(await owner.conversationId(), bytes, {
        name,
        contentType,
        signal: extra.signal,
      });
      return ok(
        { messageId: sent.sent.messageId, name, size: bytes.byteLength },
        `Sent ${name} (${bytes.byteLength} bytes) to the owner.`,
      );
    },
  );

  return server;
}
