/**
 * The composer (grammY/Bolt-style middleware) over the real pipeline: order
 * and `next()`, `command`, `hears`, `on`, `filter` with a type guard, `reply`,
 * and middleware errors on the one `error` channel.
 */
import { describe, expect, it } from 'vitest';
import { Composer, runComposer } from '../../../packages/sdk/src/agent/composer.js';
import { createContext, isMessage, type Context } from '../../../packages/sdk/src/agent/context.js';
import type { SendResult } from '../../../packages/sdk/src/agent/events.js';
import type { AmsError } from '../../../packages/sdk/src/core/errors/index.js';
import { isHandlerError } from '../../../packages/sdk/src/core/errors/index.js';
import { CONVERSATION, createHarness, USER_ID, type Harness } from '../../helpers/agent-pipeline.js';

function mount(h: Harness, composer: Composer): { errors: AmsError[] } {
  const errors: AmsError[] = [];
  h.emitter.on('error', (e) => void errors.push(e));
  h.emitter.on('event', (event) =>
    runComposer(
      composer,
      createContext(event, {
        agentId: 'agent-1',
        send: (conversationId, payload) => {
          h.sent.push({ conversationId, payload });
          return Promise.resolve({ messageId: 'm', conversationId, seq: 1, created: true } as SendResult);
        },
      }),
    ),
  );
  return { errors };
}

async function say(h: Harness, text: string): Promise<void> {
  await h.pipeline.ingest(h.sealed('message.new', h.sealFrom({ type: 'text', text })));
}

describe('composer', () => {
  it('use: middleware run in order around next(); without next() the chain stops', async () => {
    const h = createHarness();
    const seen: string[] = [];
    const c = new Composer()
      .use(async (ctx, next) => {
        seen.push(`a:${ctx.type}`);
        await next();
        seen.push('a:after');
      })
      .use((ctx) => void seen.push(`b:${ctx.text}`))
      .use(() => void seen.push('never'));
    mount(h, c);
    await say(h, 'hi');
    expect(seen).toEqual(['a:message.new', 'b:hi', 'a:after']);
  });

  it('command: /start with args; other commands and plain text pass through', async () => {
    const h = createHarness();
    const seen: string[] = [];
    const c = new Composer()
      .command('start', (ctx) => void seen.push(`start[${ctx.command.name}|${ctx.command.args}]`))
      .command(['help', 'h'], (ctx) => ctx.reply(`help for ${ctx.command.args || 'all'}`))
      .use((ctx) => void seen.push(`rest:${ctx.text}`));
    mount(h, c);
    await say(h, '/start  deep link ');
    await say(h, '/help');
    await say(h, '/startle');
    await say(h, 'start');
    expect(seen).toEqual(['start[start|deep link]', 'rest:/startle', 'rest:start']);
    expect(h.sent.map((s) => s.payload)).toEqual(['help for all']);
    expect(() => new Composer().command('/start', () => undefined)).toThrow(TypeError);
  });

  it('hears: a RegExp sets ctx.match; a string must equal the whole trimmed text', async () => {
    const h = createHarness();
    const seen: string[] = [];
    const c = new Composer()
      .hears(/^order (\d+)$/i, (ctx) => void seen.push(`order ${ctx.match[1]}`))
      .hears('ping', (ctx) => void seen.push(`pong ${ctx.match[0]}`))
      .use((ctx) => void seen.push(`other:${ctx.text}`));
    mount(h, c);
    for (const t of ['Order 42', ' ping ', 'ping pong']) await say(h, t);
    expect(seen).toEqual(['order 42', 'pong ping', 'other:ping pong']);
  });

  it('on and filter: typed by event; a type guard narrows ctx', async () => {
    const h = createHarness();
    const seen: string[] = [];
    const c = new Composer()
      .on('relation.established', (ctx) => void seen.push(`relation:${ctx.event.userId}`))
      .filter(isMessage, (ctx, next) => {
        seen.push(`message:${ctx.event.text}`);
        return next();
      })
      .filter(
        (ctx: Context) => ctx.text?.startsWith('!') === true,
        (ctx) => void seen.push(`bang:${ctx.text}`),
      );
    mount(h, c);
    await say(h, 'plain');
    await say(h, '!loud');
    const payload = { type: 'relation.established', user_id: USER_ID, conversation_id: CONVERSATION };
    const wire = h.sealFrom(payload, {
      sender: { id: 'system', keys: h.system },
      eventType: 'relation.established',
    });
    await h.pipeline.ingest(h.sealed('relation.established', wire));
    expect(seen).toEqual(['message:plain', 'message:!loud', 'bang:!loud', `relation:${USER_ID}`]);
  });

  it('a middleware error goes to the error channel as HANDLER_FAILED with its cause; the next event runs', async () => {
    const h = createHarness();
    const boom = new Error('middleware bug');
    const c = new Composer().use((ctx) => {
      if (ctx.text === 'bad') throw boom;
    });
    const { errors } = mount(h, c);
    const seen: string[] = [];
    h.emitter.on('message.new', (m) => void seen.push(m.text ?? ''));
    await say(h, 'bad');
    await say(h, 'good');
    expect(seen).toEqual(['bad', 'good']);
    expect(errors).toHaveLength(1);
    expect(isHandlerError(errors[0])).toBe(true);
    expect(errors[0]!.cause).toBe(boom);
    expect(errors[0]!.message).toContain('middleware bug');
  });

  it('next() twice is an error; composers nest with use(composer)', async () => {
    const h = createHarness();
    const seen: string[] = [];
    const inner = new Composer().hears('x', () => void seen.push('inner'));
    const c = new Composer().use(inner).use(async (_ctx, next) => {
      await next();
      await next();
    });
    const { errors } = mount(h, c);
    await say(h, 'x');
    await say(h, 'y');
    expect(seen).toEqual(['inner']);
    expect(errors.map((e) => String((e.cause as Error).message))).toEqual([
      'next() was called more than once by one middleware.',
    ]);
  });

  it('runComposer says whether the chain passed the event on (the agent then runs its agent.on handlers)', async () => {
    const h = createHarness();
    const c = new Composer().command('start', () => undefined);
    const passed: boolean[] = [];
    h.emitter.on('event', async (event) => {
      passed.push(
        await runComposer(
          c,
          createContext(event, { agentId: 'agent-1', send: () => Promise.reject(new Error('no')) }),
        ),
      );
    });
    await say(h, '/start');
    await say(h, 'hello');
    expect(passed).toEqual([false, true]);
    expect(
      await runComposer(
        new Composer(),
        createContext({ type: 'x' } as never, { agentId: 'a', send: () => Promise.reject(new Error('no')) }),
      ),
    ).toBe(true);
  });
});
