/**
 * `agent-messaging-sdk/chat`: a Chat SDK (`chat` 4.x) adapter, so a Chat SDK
 * bot runs on the service unchanged, end to end encrypted. `chat` is an
 * optional peer dependency: install it beside the SDK. See docs/chat-sdk.md.
 *
 * @example
 * ```ts
 * import { Chat } from 'chat';
 * import { createMemoryState } from '@chat-adapter/state-memory';
 * import { createAmsAdapter } from 'agent-messaging-sdk/chat';
 *
 * const bot = new Chat({ userName: 'helper', adapters: { ams: createAmsAdapter() }, state: createMemoryState() });
 * bot.onDirectMessage(async (thread, message) => { await thread.post(`echo: ${message.text}`); });
 * await bot.initialize(); // connects the Agent built from AMS_BASE_URL, AMS_AGENT_ID, AMS_AGENT_TOKEN
 * ```
 *
 * @module chat
 */
export { AmsAdapter, createAmsAdapter, type AmsAdapterConfig, type AmsRawMessage } from './adapter.js';
export { decodeAmsThreadId, encodeAmsThreadId, type AmsThreadId } from './thread-id.js';
