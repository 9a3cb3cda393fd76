/**
 * Type matrix consumer: `agent-messaging-sdk/chat` (ESM only, like its peer
 * `chat`; an .mts file, so it is an ES module in the CommonJS cells too). A
 * Chat SDK bot on a given Agent, the thread id helpers, and the adapter as a
 * Chat SDK `Adapter`.
 */
import { Chat, type Adapter, type StateAdapter } from 'chat';
import { Agent } from 'agent-messaging-sdk';
import {
  AmsAdapter,
  createAmsAdapter,
  decodeAmsThreadId,
  encodeAmsThreadId,
  type AmsAdapterConfig,
  type AmsRawMessage,
  type AmsThreadId,
} from 'agent-messaging-sdk/chat';

declare const state: StateAdapter;

export async function chatBot(): Promise<void> {
  const agent = new Agent({ baseUrl: 'https://api.example.com', agentId: 'a1', token: 'hsk_x' });
  const config: AmsAdapterConfig = { agent, cards: { sensitivity: 'high', ttlMs: 60_000 } };
  const ams: AmsAdapter = createAmsAdapter(config);
  const asAdapter: Adapter<AmsThreadId, AmsRawMessage> = ams;
  const bot = new Chat({ userName: 'helper', adapters: { ams }, state });
  bot.onDirectMessage(async (thread, message) => {
    await thread.post(`echo: ${message.text}`);
  });
  const thread: AmsThreadId = decodeAmsThreadId(encodeAmsThreadId({ conversationId: 'c1', kind: 'dm' }));
  console.log(thread.kind, asAdapter.name, ams.agent.agentId);
  await bot.initialize();
}
