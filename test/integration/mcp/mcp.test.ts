/**
 * The MCP bridge (agent-messaging-sdk/mcp, docs/mcp.md) end to end: an MCP
 * client over the MCP SDK's in-memory transport calls each tool; the agent
 * is a test world's (reference server, real sockets, through the relay), its
 * owner a UserClient that answers. Waits time out on a ManualClock the test
 * advances, never on real time. Elicitation: a low-level MCP server asks, the
 * client's handler forwards the request to the owner as an artifact.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ElicitRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ReceivedArtifact } from '../../../packages/sdk/src/client/user-artifacts.js';
import { createTestWorld, type TestWorld } from '@agent-messaging/dev/testing';
import { isValidationError, type FilePayload, type ReceivedMessage } from 'agent-messaging-sdk';
import {
  createElicitationHandler,
  createMcpServer,
  elicitationToArtifact,
  type ElicitParams,
} from 'agent-messaging-sdk/mcp';
import { ManualClock, parseArtifactContent } from 'agent-messaging-sdk/protocol';
import { mcpBridgeDemo } from '../../../examples/mcp-bridge.js';
import { runCli } from '../../../packages/dev/src/cli/run.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

let world: TestWorld;
let clock: ManualClock;
let server: McpServer;
let client: Client;
/** What the owner does with the next artifact. */
let onArtifact: (a: ReceivedArtifact) => unknown = () => undefined;
const artifacts: ReceivedArtifact[] = [];
const messages: ReceivedMessage[] = [];

beforeAll(async () => {
  world = await createTestWorld({ relay: true });
  world.user.on('artifact', (a) => {
    artifacts.push(a);
    void onArtifact(a);
  });
  world.user.on('message', (m) => void messages.push(m));
  clock = new ManualClock();
  server = createMcpServer({ agent: world.agent, clock, defaultTimeoutMs: 60_000 });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client?.close();
  await world?.close();
});

const call = (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
const textOf = (r: CallToolResult): string =>
  r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');

/** Resolves with the next artifact the owner receives. */
function nextArtifact(): Promise<ReceivedArtifact> {
  const seen = artifacts.length;
  return vi.waitFor(
    () => {
      const a = artifacts[seen];
      if (a === undefined) throw new Error('no artifact yet');
      return a;
    },
    { timeout: 5000, interval: 10 },
  );
}

/** Resolves once the bridge set its wait timer on the manual clock. */
const timerSet = (c: ManualClock): Promise<void> =>
  vi.waitFor(
    () => {
      if (c.pendingTimers === 0) throw new Error('no timer yet');
    },
    { timeout: 5000, interval: 10 },
  );

/**
 * The owner's view of a question nobody waits for: a new revision saying so replaces it, the
 * question itself can no longer be answered, and the new revision expires in the shortest time the
 * service allows (1 s of the service's clock), after which it cannot be answered either.
 */
async function expectClosed(asked: ReceivedArtifact, closed: ReceivedArtifact, why: RegExp): Promise<void> {
  expect(closed).toMatchObject({ artifactId: asked.artifactId, revision: 2 });
  expect(closed.content).toEqual({
    kind: 'confirm',
    title: `No longer needed: ${asked.content.title}`,
    body: expect.stringMatching(why),
  });
  await expect(asked.deny('user_rejected')).rejects.toMatchObject({ code: 'ARTIFACT_REVISION_CONFLICT' });
  await world.advanceTime(1_000);
  expect(await closed.approve()).toMatchObject({ accepted: false, state: 'expired' });
  world.relay!.assertNoPlaintext('No longer needed'); // sealed, as the question was
}

describe('createMcpServer: the tools, end to end', () => {
  it('lists the four tools with their input schemas', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'ask_owner',
      'notify_owner',
      'send_file',
      'wait_for_reply',
    ]);
    const ask = tools.find((t) => t.name === 'ask_owner')!;
    expect(ask.inputSchema.required).toEqual(['question']);
    expect(Object.keys(ask.inputSchema.properties ?? {})).toEqual([
      'question',
      'details',
      'fields',
      'timeout_seconds',
    ]);
  });

  it('notify_owner: the owner reads the text; the relay never saw it', async () => {
    const r = await call('notify_owner', { text: 'build 4921-7714 is green' });
    expect(r.isError).toBeUndefined();
    const got = await vi.waitFor(() => {
      const m = messages.find((x) => JSON.stringify(x.payload).includes('4921-7714'));
      if (m === undefined) throw new Error('not yet');
      return m;
    });
    expect(got.senderId).toBe(world.agentId);
    expect(r.structuredContent).toEqual({ messageId: got.messageId });
    world.relay!.assertNoPlaintext('4921-7714');
  });

  it('ask_owner: a confirmation the owner approves', async () => {
    onArtifact = (a) => a.approve();
    const r = await call('ask_owner', { question: 'Deploy 8812-3390 to prod?', details: 'version 1.4.2' });
    expect(r.structuredContent).toEqual({ status: 'approved', answer: {} });
    expect(artifacts.at(-1)!.content).toEqual({
      kind: 'confirm',
      title: 'Deploy 8812-3390 to prod?',
      body: 'version 1.4.2',
    });
    world.relay!.assertNoPlaintext('8812-3390');
  });

  it('ask_owner: a form the owner fills in', async () => {
    onArtifact = (a) => a.approve({ city: 'Lyon', nights: 2, pets: false, room: 'double' });
    const r = await call('ask_owner', {
      question: 'Book a hotel',
      fields: [
        { name: 'city', label: 'City', type: 'text', required: true },
        { name: 'nights', label: 'Nights', type: 'number' },
        { name: 'pets', label: 'Pets?', type: 'boolean' },
        { name: 'room', label: 'Room', type: 'choice', options: ['single', 'double'] },
      ],
    });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({
      status: 'approved',
      answer: { city: 'Lyon', nights: 2, pets: false, room: 'double' },
    });
  });

  it('ask_owner: "no" is an answer, not an error', async () => {
    onArtifact = (a) => a.deny('user_rejected');
    const r = await call('ask_owner', { question: 'Delete the branch?' });
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent).toEqual({ status: 'denied', reason: 'user_rejected' });
    expect(textOf(r)).toBe('The owner declined (user_rejected).');
  });

  it('ask_owner: no answer in time is a clear tool error (manual clock); the question is closed', async () => {
    onArtifact = () => undefined;
    const pending = call('ask_owner', { question: 'Anyone there?', timeout_seconds: 90 });
    const asked = await nextArtifact();
    await timerSet(clock);
    const closing = nextArtifact();
    clock.advance(90_000);
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe('No answer from the owner within 90 s.');
    expect(clock.pendingTimers).toBe(0);
    await expectClosed(asked, await closing, /No answer came in time/);
  });

  it('ask_owner: a cancelled call closes its question', async () => {
    onArtifact = () => undefined;
    const ac = new AbortController();
    const pending = client.callTool(
      {
        name: 'ask_owner',
        arguments: { question: 'Still there?', fields: [{ name: 'why', label: 'Why', type: 'text' }] },
      },
      undefined,
      { signal: ac.signal },
    );
    const asked = await nextArtifact();
    expect(asked.content.kind).toBe('form');
    await timerSet(clock);
    const closing = nextArtifact();
    ac.abort();
    await expect(pending).rejects.toThrow();
    await expectClosed(asked, await closing, /withdrawn/);
  });

  it('wait_for_reply: a message that arrived before the call is returned at once', async () => {
    const id = await world.sendAsUser('first, before the call');
    await world.waitForDelivery();
    const r = await call('wait_for_reply', { timeout_seconds: 1 });
    expect(r.structuredContent).toMatchObject({
      messageId: id,
      text: 'first, before the call',
      type: 'text',
    });
    expect(clock.pendingTimers).toBe(0);
  });

  it('wait_for_reply: waits for the next message', async () => {
    const pending = call('wait_for_reply', {});
    await timerSet(clock);
    const id = await world.sendAsUser('second 5521-0043');
    const r = await pending;
    expect(r.structuredContent).toMatchObject({ messageId: id, text: 'second 5521-0043', type: 'text' });
    expect(clock.pendingTimers).toBe(0);
    world.relay!.assertNoPlaintext('5521-0043');
  });

  it('wait_for_reply: no message in time is a clear tool error (manual clock)', async () => {
    const pending = call('wait_for_reply', { timeout_seconds: 30 });
    await timerSet(clock);
    clock.advance(30_000);
    const r = await pending;
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe('No message from the owner within 30 s.');
  });

  it('a cancelled call stops its wait (no timer left on the clock)', async () => {
    const ac = new AbortController();
    const pending = client.callTool({ name: 'wait_for_reply', arguments: {} }, undefined, {
      signal: ac.signal,
    });
    await timerSet(clock);
    ac.abort();
    await expect(pending).rejects.toThrow();
    await vi.waitFor(() => expect(clock.pendingTimers).toBe(0));
  });

  it('send_file: the owner receives the file, encrypted', async () => {
    const r = await call('send_file', { name: 'notes.txt', content: 'secret notes 7301-2286' });
    expect(r.structuredContent).toMatchObject({ name: 'notes.txt', size: 22 });
    const got = await vi.waitFor(() => {
      const m = messages.find((x) => x.payload.type === 'file');
      if (m === undefined) throw new Error('not yet');
      return m;
    });
    expect(got.messageId).toBe(r.structuredContent?.['messageId']);
    const payload = got.payload as FilePayload;
    expect([payload.name, payload.content_type]).toEqual(['notes.txt', 'text/plain']);
    const file = await world.user.files.download(payload);
    expect(new TextDecoder().decode(await file.toBytes())).toBe('secret notes 7301-2286');
    world.relay!.assertNoPlaintext('7301-2286');
  });

  it('refuses bad input with the schema, before anything is sent', async () => {
    const r = await call('ask_owner', {
      question: 'x',
      fields: [{ name: 'Bad Name', label: 'x', type: 'text' }],
    });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toMatch(/Input validation error/);
  });
});

describe('createElicitationHandler: elicitation/create answered by the owner', () => {
  let elicitClock: ManualClock;
  let asker: Server;
  beforeAll(async () => {
    elicitClock = new ManualClock();
    asker = new Server({ name: 'asking-server', version: '1.0.0' }, { capabilities: {} });
    const agentClient = new Client(
      { name: 'agent-as-client', version: '1.0.0' },
      { capabilities: { elicitation: { form: {}, url: {} } } },
    );
    agentClient.setRequestHandler(
      ElicitRequestSchema,
      createElicitationHandler({ agent: world.agent, clock: elicitClock, timeoutMs: 120_000 }),
    );
    const [a, b] = InMemoryTransport.createLinkedPair();
    await asker.connect(b);
    await agentClient.connect(a);
  });
  afterAll(() => asker?.close());

  const form = {
    message: 'Ship where?',
    requestedSchema: {
      type: 'object' as const,
      properties: {
        city: { type: 'string' as const, title: 'City', minLength: 2 },
        floor: { type: 'integer' as const, title: 'Floor', minimum: 0, maximum: 50 },
        express: { type: 'boolean' as const, title: 'Express' },
        speed: {
          type: 'string' as const,
          title: 'Speed',
          oneOf: [
            { const: 'slow', title: 'Slow (3 days)' },
            { const: 'fast', title: 'Fast (1 day)' },
          ],
        },
        zipCode: { type: 'string' as const },
      },
      required: ['city', 'speed'],
    },
  };

  it('accept: the owner fills in the form; values come back under the schema names', async () => {
    onArtifact = (a) =>
      a.approve({ city: 'Lyon', floor: 3, express: true, speed: 'Fast (1 day)', zipcode: '69001' });
    const result = await asker.elicitInput(form);
    expect(result).toEqual({
      action: 'accept',
      content: { city: 'Lyon', floor: 3, express: true, speed: 'fast', zipCode: '69001' },
    });
    const shown = artifacts.at(-1)!.content;
    expect(shown).toMatchObject({ kind: 'form', title: 'Ship where?' });
    expect(shown.kind === 'form' && shown.fields.map((f) => [f.name, f.input, f.required ?? false])).toEqual([
      ['city', 'text', true],
      ['floor', 'number', false],
      ['express', 'boolean', false],
      ['speed', 'choice', true],
      ['zipcode', 'text', false],
    ]);
  });

  it('decline: the owner says no', async () => {
    onArtifact = (a) => a.deny('user_rejected');
    expect(await asker.elicitInput(form)).toEqual({ action: 'decline' });
  });

  it('cancel: no answer in time (manual clock); the question is closed', async () => {
    onArtifact = () => undefined;
    const pending = asker.elicitInput(form);
    const asked = await nextArtifact();
    await timerSet(elicitClock);
    const closing = nextArtifact();
    elicitClock.advance(120_000);
    expect(await pending).toEqual({ action: 'cancel' });
    await expectClosed(asked, await closing, /No answer came in time/);
  });

  it('URL mode: a confirmation showing the link; approval accepts', async () => {
    onArtifact = (a) => a.approve();
    const result = await asker.elicitInput({
      mode: 'url',
      message: 'Sign in to continue',
      url: 'https://auth.example.com/start',
      elicitationId: 'e-1',
    });
    expect(result).toEqual({ action: 'accept' });
    expect(artifacts.at(-1)!.content).toEqual({
      kind: 'confirm',
      title: 'Sign in to continue',
      body: 'Open this link to continue: https://auth.example.com/start',
    });
  });

  it('a multi-select (array) field is refused with a typed error; nothing reaches the owner', async () => {
    const before = artifacts.length;
    const params = {
      message: 'Pick tags',
      requestedSchema: {
        type: 'object' as const,
        properties: {
          tags: { type: 'array' as const, items: { type: 'string' as const, enum: ['a', 'b'] } },
        },
      },
    };
    await expect(asker.elicitInput(params)).rejects.toThrow(
      /tags: multi-select \(array\) fields have no form field/,
    );
    expect(artifacts.length).toBe(before);
    let thrown: unknown;
    try {
      elicitationToArtifact(params);
    } catch (err) {
      thrown = err;
    }
    expect(isValidationError(thrown)).toBe(true);
    expect((thrown as { params: unknown }).params).toEqual({ reason: 'unsupported_schema' });
  });
});

describe('elicitationToArtifact (no service)', () => {
  it('an answer that does not fit the schema is a typed error', () => {
    const mapped = elicitationToArtifact({
      message: 'n',
      requestedSchema: {
        type: 'object',
        properties: { n: { type: 'integer', maximum: 5 } },
        required: ['n'],
      },
    });
    expect(() => mapped.contentOf({ n: 7 })).toThrow(/n: out of range/);
    expect(() => mapped.contentOf({ n: 2.5 })).toThrow(/n: expected a whole number/);
    expect(() => mapped.contentOf({})).toThrow(/n: required/);
    expect(mapped.contentOf({ n: 4 })).toEqual({ n: 4 });
  });

  it('a long message becomes a clipped title and a preface', () => {
    const message = 'x'.repeat(300);
    const mapped = elicitationToArtifact({ message, requestedSchema: { type: 'object', properties: {} } });
    expect(mapped.content).toEqual({ kind: 'confirm', title: `${'x'.repeat(199)}…` });
    expect(mapped.preface).toBe(message);
  });

  it('fuzz: any schema either maps to a valid artifact or is refused with a ValidationError', () => {
    const prop = fc.oneof(
      fc.record({
        type: fc.constantFrom('string', 'number', 'integer', 'boolean', 'array', 'object', 'null'),
      }),
      fc.record({
        type: fc.constant('string'),
        enum: fc.array(fc.string({ maxLength: 250 }), { maxLength: 5 }),
      }),
      fc.record({
        type: fc.constant('string'),
        oneOf: fc.array(fc.record({ const: fc.string(), title: fc.string() }), { maxLength: 4 }),
      }),
      fc.record({
        type: fc.constant('string'),
        format: fc.string({ maxLength: 10 }),
        title: fc.string({ maxLength: 300 }),
      }),
      fc.anything(),
    );
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        fc.dictionary(fc.string({ maxLength: 80 }), prop, { maxKeys: 8 }),
        (message, properties) => {
          try {
            const mapped = elicitationToArtifact({
              message,
              requestedSchema: { type: 'object', properties },
            } as unknown as ElicitParams);
            expect(() => parseArtifactContent(mapped.content)).not.toThrow();
          } catch (err) {
            if (!isValidationError(err)) throw err;
          }
        },
      ),
    );
  });
});

describe('examples/mcp-bridge.ts (docs/mcp.md)', () => {
  it('runs as printed: tools, notify, a form answered, a reply, an elicitation', async () => {
    const lines: string[] = [];
    await mcpBridgeDemo((line) => lines.push(line));
    expect(lines).toEqual([
      'tools: notify_owner, ask_owner, wait_for_reply, send_file',
      'owner reads: The refactor is done: 14 files changed, tests green.',
      'owner is asked: Where should I push it?',
      'client gets: {"status":"approved","answer":{"branch":"main","run_e2e":true}}',
      'client gets the reply: "Thanks! Ping me when CI is done."',
      'owner is asked: Deploy to which environment?',
      'server gets: {"action":"accept","content":{"environment":"staging"}}',
    ]);
  });
});

describe('docs/mcp.md runs as printed', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'mcp.md'), 'utf8');

  it('prints the regions of examples/mcp-bridge.ts verbatim, and no other TypeScript', () => {
    const file = readFileSync(join(ROOT, 'examples', 'mcp-bridge.ts'), 'utf8');
    const dedent = (code: string): string => code.replace(/^ {4}/gm, '').replace(/ +$/, '');
    const regions = [...file.matchAll(/\/\/ #region (\w+)\n([\s\S]*?)\/\/ #endregion \1\n/g)].map((m) => [
      m[1],
      dedent(m[2]!),
    ]);
    const printed = [
      ...doc.matchAll(/<!-- region: examples\/mcp-bridge\.ts#(\w+) -->\n```ts\n([\s\S]*?)```/g),
    ].map((m) => [m[1], m[2]]);
    expect(regions.map(([name]) => name)).toEqual(['server', 'elicitation']);
    expect(printed).toEqual(regions);
    expect(doc.match(/^```ts$/gm)).toHaveLength(2);
  });

  it('the MCP client config is JSON whose command line ams accepts', async () => {
    const block = /```json\n([\s\S]*?)```/.exec(doc)![1]!;
    const config = JSON.parse(block) as { mcpServers: Record<string, { command: string; args: string[] }> };
    const { command, args } = config.mcpServers['owner']!;
    expect([command, args[0]]).toEqual(['npx', 'ams']);
    const dir = mkdtempSync(join(tmpdir(), 'ams-mcp-doc-'));
    try {
      writeFileSync(join(dir, '.env'), 'AMS_BASE_URL=http://127.0.0.1:8080\n');
      const out: string[] = [];
      const io = {
        stdout: { write: (t: string) => out.push(t) },
        stderr: { write: (t: string) => out.push(t) },
      };
      const argv = args.slice(1).map((a) => (a.endsWith('/.env') ? join(dir, '.env') : a));
      expect(await runCli([...argv, '--help'], io)).toBe(0);
      expect(out.join('')).toContain('Usage: ams mcp');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('ams mcp without the agent variables is a usage error (exit 2) naming what is missing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ams-mcp-usage-'));
    try {
      const err: string[] = [];
      const io = {
        stdout: { write: () => true },
        stderr: { write: (t: string) => err.push(t) },
        env: {},
        workDir: dir,
      };
      expect(await runCli(['mcp'], io)).toBe(2);
      expect(err.join('')).toBe("ams mcp: --agent-id (or AMS_AGENT_ID) is required. Run 'ams mcp --help'.\n");
      err.length = 0;
      expect(await runCli(['mcp', '--agent-id', 'a1'], io)).toBe(2);
      expect(err.join('')).toBe("ams mcp: AMS_AGENT_TOKEN is required. Run 'ams mcp --help'.\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
