/**
 * `ams dev chat`: the owner talks to the agent from a terminal. Each line of
 * standard input is sent; what the agent sends is printed as it arrives
 * (`agent: <text>`), connection events on stderr. Ends on EOF or Ctrl-C (exit 0),
 * or with exit 1 when the connection is lost for good.
 *
 * @module
 */
import { createInterface, type Interface } from 'node:readline';
import { Readable } from 'node:stream';
import type { ReceivedMessage } from 'agent-messaging-sdk';
import { EXIT, stringOf } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import type { CliIo } from '../io.js';
import { conversationWithAgent, signInOwner } from '../dev/owner.js';
import { payloadText } from '../dev/print.js';
import { describeError } from '../report.js';

/** After EOF, how long chat waits for the agent to answer the last line, ms. */
export const LAST_REPLY_WAIT_MS = 3000;

function waitUpTo(ms: number, arm: (done: () => void) => void): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    arm(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Help text of `ams dev chat`. */
export const DEV_CHAT_HELP = `Usage: ams dev chat [--base-url URL] [--key-dir DIR]

Talk to the agent as its owner: every line you type is sent; the agent's
messages are printed as they arrive ('agent: <text>'), service notices and
connection changes on stderr. Ends on EOF (Ctrl-D) or Ctrl-C (exit 0), or
when the connection is lost for good, e.g. the device was removed (exit 1). Signs in as
the same device as 'ams dev send' (see 'ams dev send --help').

Options:
  --base-url URL  Reference server (default $AMS_BASE_URL)
  --key-dir DIR   Where the CLI's state file is kept (default $AMS_KEY_DIR)
  -h, --help      Show this help
`;

/** The `ams dev chat` command. */
export const devChatCommand: CommandSpec = {
  name: 'dev chat',
  help: DEV_CHAT_HELP,
  options: { 'base-url': { type: 'string' }, 'key-dir': { type: 'string' } },
  async run(values, io) {
    const session = await signInOwner(io, {
      baseUrl: stringOf(values, 'base-url'),
      keyDir: stringOf(values, 'key-dir'),
    });
    const { client, agentId } = session;
    const source = io.stdin ?? process.stdin;
    // A real stream (process.stdin) is read directly, so destroying it lets the process end.
    const input = source instanceof Readable ? source : Readable.from(source);
    // Created only when read: lines emitted before its iterator exists would be lost.
    let lines: Interface | undefined;
    let lost = false;
    let stopping = false;
    const stop = (): void => {
      stopping = true;
      lines?.close();
      input.destroy();
    };
    try {
      const conversationId = await conversationWithAgent(session);
      // For the wait after EOF: lines sent, and agent messages after the first of them.
      let sent = 0;
      let firstSentSeq: number | undefined;
      let replies = 0;
      const answered = (): boolean => replies >= sent;
      let onAnswer: (() => void) | undefined;
      client.on('message', (m: ReceivedMessage) => {
        if (m.conversationId !== conversationId) return;
        if (m.senderId === agentId) {
          io.stdout.write(`agent: ${payloadText(m.payload)}\n`);
          if (sent > 0 && (m.seq === undefined || firstSentSeq === undefined || m.seq > firstSentSeq))
            replies++;
          if (answered()) onAnswer?.();
        } else if (m.senderId === 'system') {
          io.stderr.write(`ams dev chat: ${m.event}: ${payloadText(m.payload)}\n`);
        }
      });
      client.on('messageFailed', (f) =>
        io.stderr.write(`ams dev chat: a message could not be opened (${f.error.code})\n`),
      );
      client.on('disconnected', (d) => {
        if (!stopping) io.stderr.write(`ams dev chat: disconnected (${d.code}); reconnecting…\n`);
      });
      client.on('sessionInvalidated', () => io.stderr.write('ams dev chat: this device was signed out\n'));
      client.on('connectionFailed', (e) => {
        io.stderr.write(`ams dev chat: connection lost: ${describeError(e)}\n`);
        lost = true;
        stop();
      });
      await client.connect();
      // Before the line that says the chat is ready: a Ctrl-C right after it must not meet
      // the default SIGINT action (the process killed, exit 130).
      process.once('SIGINT', stop);
      io.stderr.write(
        `ams dev chat: talking to agent ${agentId} (conversation ${conversationId}); Ctrl-D ends\n`,
      );
      lines = createInterface({ input, terminal: false });
      for await (const line of lines) {
        if (line.trim() === '') continue;
        sent++;
        const result = await client.send(conversationId, { type: 'text', text: line });
        firstSentSeq ??= result.seq;
      }
      // Input ended (e.g. piped): give the agent a moment to answer the last line.
      if (!lost && !answered()) await waitUpTo(LAST_REPLY_WAIT_MS, (done) => (onAnswer = done));
      return lost ? EXIT.failure : EXIT.ok;
    } finally {
      process.off('SIGINT', stop);
      stop(); // stops reading standard input, so the process can end
      await client.signOut().catch(() => {});
    }
  },
};

/** Runs `ams dev chat`. */
export function runDevChat(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(devChatCommand, argv, io);
}
