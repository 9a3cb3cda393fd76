/**
 * Files in a group conversation against the reference server (real HTTP and
 * WebSocket): every member (a second human who joined by code, an agent)
 * downloads and decrypts what one member uploaded; a non-member is refused
 * with NOT_CONVERSATION_MEMBER_UPLOAD and cannot fetch the object.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingMessage as AgentMessage } from '../../../packages/sdk/src/agent/index.js';
import type { ReceivedMessage, UserClient } from '../../../packages/sdk/src/client/index.js';
import { isServiceError } from '../../../packages/sdk/src/core/errors/index.js';
import type { FilePayload } from '../../../packages/sdk/src/core/protocol/file-payload.js';
import type { ReferenceServer } from '../../../packages/dev/src/testing/index.js';
import { newUserClient, signUp } from '../../helpers/client-setup.js';
import { newAgent, startWorld, waitFor } from '../../helpers/agent-world.js';

let server: ReferenceServer;
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  server = await startWorld();
});
afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
  await server.close();
});

async function human(): Promise<{ client: UserClient; userId: string; messages: ReceivedMessage[] }> {
  const { client, userId } = await signUp(server, newUserClient(server));
  const messages: ReceivedMessage[] = [];
  client.on('message', (m) => void messages.push(m));
  await client.connect();
  closers.push(() => client.disconnect());
  return { client, userId, messages };
}

describe('files in a group', () => {
  it('every member downloads what one uploaded; a non-member can neither upload nor fetch', async () => {
    const ada = await human();
    const bob = await human();
    const carol = await human();
    const created = await ada.client.createAgent({ name: 'Librarian' });
    const agent = newAgent(server, created);
    const agentMessages: AgentMessage[] = [];
    agent.on('message.new', (m) => void agentMessages.push(m));
    await agent.connect();
    closers.push(() => agent.close({ timeoutMs: 1000 }));

    const group = await ada.client.groups.create({ name: 'Reading club', agentIds: [created.agentId] });
    const id = group.conversationId;
    const { code } = await ada.client.groups.invite(id);
    await bob.client.groups.join(code);
    await ada.client.groups.admit(id); // Bob in the owner-signed roster before the upload

    const text = 'chapter one\n'.repeat(20_000);
    await ada.client.files.upload(id, new TextEncoder().encode(text), {
      name: 'chapter.txt',
      contentType: 'text/plain',
    });
    await waitFor(
      () =>
        bob.messages.some((m) => m.payload.type === 'file') &&
        agentMessages.some((m) => m.payload.type === 'file'),
      'the file message at every member',
    );

    const forBob = bob.messages.find((m) => m.payload.type === 'file')!;
    const bobCopy = await (await bob.client.files.download(forBob.payload as FilePayload)).toBytes();
    expect(new TextDecoder().decode(bobCopy)).toBe(text);

    const forAgent = agentMessages.find((m) => m.payload.type === 'file')!;
    const agentCopy = await (await agent.files.download(forAgent.payload as FilePayload)).toBytes();
    expect(new TextDecoder().decode(agentCopy)).toBe(text);

    // Carol is in no shared conversation: her upload into the group and her fetch are refused.
    const refused = await carol.client.files
      .upload(id, new Uint8Array([1, 2, 3]), { name: 'x.bin' })
      .catch((e: unknown) => e);
    expect(isServiceError(refused) && refused.code).toBe('NOT_CONVERSATION_MEMBER_UPLOAD');
    const fetched = await carol.client.files
      .download(forBob.payload as FilePayload)
      .then((d) => d.toBytes())
      .catch((e: unknown) => e);
    expect(isServiceError(fetched) && fetched.code).toBe('NOT_FOUND');
  }, 30_000);
});
