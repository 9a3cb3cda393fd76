/**
 * A composer of middleware for the Agent's events, in the style of grammY,
 * Telegraf and Bolt: `use`, `on`, `command`, `hears`, `filter`. It sits in
 * front of the typed events: the agent's chain runs first, and the
 * `agent.on(type)` handlers of the same event are its end, reached only when
 * the chain passes the event on (as in grammY, a handled command ends the
 * chain), so both styles can be mixed.
 * What a middleware throws goes to the agent's `error` channel as
 * `HANDLER_FAILED`, like a handler's error.
 *
 * Middleware run in order; each calls `await next()` to pass the event on.
 * The handlers of `command`, `hears`, `on` and `filter` run when their
 * condition holds and end the chain unless they call `next()` themselves;
 * when it does not hold, the event goes on to the next middleware.
 *
 * @example
 * ```ts
 * const agent = new Agent({ ... });
 * agent.use(async (ctx, next) => { const t = Date.now(); await next(); log(ctx.type, Date.now() - t); });
 * agent.command('start', (ctx) => ctx.reply(`Hello! (${ctx.command.args})`));
 * agent.hears(/^ping$/i, (ctx) => ctx.reply('pong'));
 * agent.filter(isMessage, (ctx) => ctx.reply(`echo: ${ctx.text}`));
 * ```
 *
 * @module
 */
import type { AgentEventMap, AgentEventType } from './events.js';
import type { CommandContext, Context, HearsContext, MessageContext } from './context.js';

/** Passes the event to the next middleware; resolves when the rest of the chain finished. */
export type NextFunction = () => Promise<void>;

/** One step of the chain. */
export type Middleware<C extends Context = Context> = (ctx: C, next: NextFunction) => unknown;

/** A middleware, or a composer whose chain runs as one step. */
export type MiddlewareLike<C extends Context = Context> = Middleware<C> | Composer<C>;

/** What `hears` matches: a regular expression, or a string equal to the whole (trimmed) text. */
export type HearsTrigger = RegExp | string;

const COMMAND_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function flatten<C extends Context>(mw: MiddlewareLike<C>): Middleware<C> {
  if (mw instanceof Composer) return mw.middleware();
  if (typeof mw !== 'function') throw new TypeError('A middleware must be a function or a Composer.');
  return mw;
}

function run<C extends Context>(
  chain: readonly Middleware<C>[],
  ctx: C,
  index: number,
  last: NextFunction,
): Promise<void> {
  const mw = chain[index];
  if (mw === undefined) return last();
  let called = false;
  const next: NextFunction = () => {
    if (called) return Promise.reject(new Error('next() was called more than once by one middleware.'));
    called = true;
    return run(chain, ctx, index + 1, last);
  };
  try {
    return Promise.resolve(mw(ctx, next)).then(() => undefined);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** Runs `chain` as one middleware. */
function compose<C extends Context>(chain: readonly Middleware<C>[]): Middleware<C> {
  return (ctx, next) => run(chain, ctx, 0, next);
}

/** `/name args` of a text, when it starts with a command. */
export function parseCommand(text: string | undefined): { name: string; args: string } | undefined {
  const m = /^\/([A-Za-z0-9_-]{1,64})(?:@[^\s]+)?(?:\s+([\s\S]*))?$/.exec(text?.trim() ?? '');
  if (m === null) return undefined;
  return { name: m[1]!, args: (m[2] ?? '').trim() };
}

function matchTrigger(trigger: HearsTrigger, text: string): RegExpMatchArray | undefined {
  if (typeof trigger === 'string') {
    if (text.trim() !== trigger) return undefined;
    const match = [text.trim()] as unknown as RegExpMatchArray;
    match.index = 0;
    match.input = text;
    return match;
  }
  trigger.lastIndex = 0;
  return text.match(trigger) ?? undefined;
}

/**
 * A chain of middleware. The Agent has one (`agent.use()`, `agent.command()` …);
 * build others to group handlers and mount them with `agent.use(composer)`.
 */
export class Composer<C extends Context = Context> {
  readonly #chain: Middleware<C>[] = [];

  /** @param middleware - the first steps of the chain. */
  constructor(...middleware: MiddlewareLike<C>[]) {
    this.use(...middleware);
  }

  /** Appends middleware (each must call `next()` to pass the event on). */
  use(...middleware: MiddlewareLike<C>[]): this {
    this.#chain.push(...middleware.map(flatten));
    return this;
  }

  /** Runs `middleware` for events of `type` (one type or several), typed accordingly. */
  on<E extends AgentEventType>(
    type: E | readonly E[],
    ...middleware: MiddlewareLike<C & Context<AgentEventMap[E]>>[]
  ): this {
    const types: readonly string[] = Array.isArray(type) ? type : [type];
    return this.filter(
      (ctx): ctx is C & Context<AgentEventMap[E]> => types.includes(ctx.type),
      ...middleware,
    );
  }

  /** Runs `middleware` when `predicate` holds (a type guard narrows the context). */
  filter<D extends C>(predicate: (ctx: C) => ctx is D, ...middleware: MiddlewareLike<D>[]): this;
  /** Runs `middleware` when `predicate` holds. */
  filter(predicate: (ctx: C) => boolean | Promise<boolean>, ...middleware: MiddlewareLike<C>[]): this;
  filter(predicate: (ctx: C) => boolean | Promise<boolean>, ...middleware: MiddlewareLike<C>[]): this {
    const branch = compose(middleware.map(flatten));
    return this.use(async (ctx, next) => {
      if (await predicate(ctx)) await branch(ctx, next);
      else await next();
    });
  }

  /**
   * Runs `middleware` for a text message starting with `/name` (or one of
   * several names), e.g. `/start some args`; `ctx.command` holds the name and
   * the trimmed arguments.
   *
   * @throws TypeError for a name that is not 1–64 letters, digits, `_` or `-`.
   */
  command(name: string | readonly string[], ...middleware: MiddlewareLike<CommandContext & C>[]): this {
    const names: readonly string[] = typeof name === 'string' ? [name] : name;
    for (const n of names) {
      if (!COMMAND_NAME.test(n))
        throw new TypeError(`Not a command name: "${n}" (give it without the slash).`);
    }
    const branch = compose(middleware.map(flatten));
    return this.use(async (ctx, next) => {
      const found = ctx.type === 'message.new' ? parseCommand(ctx.text) : undefined;
      if (found === undefined || !names.includes(found.name)) return next();
      ctx.command = found;
      await branch(ctx as CommandContext & C, next);
    });
  }

  /**
   * Runs `middleware` for a text message matching `trigger` (a RegExp, or a
   * string equal to the whole trimmed text; or a list of them); `ctx.match`
   * holds the match.
   */
  hears(
    trigger: HearsTrigger | readonly HearsTrigger[],
    ...middleware: MiddlewareLike<HearsContext & C>[]
  ): this {
    const triggers: readonly HearsTrigger[] = Array.isArray(trigger) ? trigger : [trigger as HearsTrigger];
    const branch = compose(middleware.map(flatten));
    return this.use(async (ctx, next) => {
      const text = ctx.type === 'message.new' ? ctx.text : undefined;
      const match = text === undefined ? undefined : firstMatch(triggers, text);
      if (match === undefined) return next();
      ctx.match = match;
      await branch(ctx as HearsContext & C, next);
    });
  }

  /** The whole chain as one middleware. */
  middleware(): Middleware<C> {
    return compose(this.#chain);
  }
}

function firstMatch(triggers: readonly HearsTrigger[], text: string): RegExpMatchArray | undefined {
  for (const t of triggers) {
    const m = matchTrigger(t, text);
    if (m !== undefined) return m;
  }
  return undefined;
}

/**
 * Runs `composer` for the context `ctx`; resolves `true` when the chain
 * passed the event on past its last middleware (nothing handled it).
 */
export async function runComposer<C extends Context>(composer: Composer<C>, ctx: C): Promise<boolean> {
  let passedOn = false;
  await composer.middleware()(ctx, () => {
    passedOn = true;
    return Promise.resolve();
  });
  return passedOn;
}

export type { CommandContext, Context, HearsContext, MessageContext };
