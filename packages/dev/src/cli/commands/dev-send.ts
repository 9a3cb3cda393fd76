/**
 * `ams dev send TEXT`: one message to the agent as its owner (from
 * `ams dev bootstrap`), then waits for the agent's reply and prints it.
 *
 * @module
 */
import type { ReceivedMessage } from 'agent-messaging-sdk';
import { EXIT, intOf, stringOf, UsageError } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import type { CliIo } from '../io.js';
import {
  conversationWithAgent,
  DevFailure,
  explainOwnerError,
  signInOwner,
  type OwnerSession,
} from '../dev/owner.js';
import { payloadText } from '../dev/print.js';

/** Seconds `ams dev send` waits for the reply when `--timeout` is not given. */
export const DEFAULT_REPLY_TIMEOUT_S = 10;

/** Help text of `ams dev send`. */
export const DEV_SEND_HELP = `Usage: ams dev send TEXT [--timeout S] [--base-url URL] [--key-dir DIR]
       ams dev send --file PATH [--content-type TYPE] [--timeout S] …

Sends TEXT (or, with --file, the file at PATH, encrypted: see docs/files.md)
to the agent as its owner, waits for the agent's first message in
that conversation after it, and prints that reply's text. Reads what
'ams dev bootstrap' printed: AMS_BASE_URL, AMS_AGENT_ID, AMS_OWNER_EMAIL,
AMS_OWNER_PASSWORD, AMS_KEY_DIR.

The CLI signs in as one device per owner and reuses it on every run; on first
use it creates the owner's keys and a key backup. Its device id and the
backup's protection password are kept (mode 0600) in
$AMS_KEY_DIR/dev-owner-<id>.json.

Exit status: 0 when the reply arrived; 1 with one line saying why otherwise
(no reply within the timeout, no bootstrap variables, server not reachable).

Options:
  --file PATH     Send this file instead of TEXT (at most 100 MB)
  --content-type TYPE  Media type of --file (default application/octet-stream)
  --timeout S     Seconds to wait for the reply (default ${DEFAULT_REPLY_TIMEOUT_S})
  --base-url URL  Reference server (default $AMS_BASE_URL)
  --key-dir DIR   Where the state file is kept (default $AMS_KEY_DIR)
  -h, --help      Show this help
`;

/** Resolves with the agent's first message in `conversationId` with a seq after `afterSeq`. */
function nextReply(session: OwnerSession, conversationId: string, afterSeq: () => number | undefined) {
  const early: ReceivedMessage[] = [];
  let settle: ((m: ReceivedMessage) => void) | undefined;
  const fits = (m: ReceivedMessage): boolean => {
    const after = afterSeq();
    return (
      m.conversationId === conversationId &&
      m.senderId === session.agentId &&
      (after === undefined || m.seq === undefined || m.seq > after)
    );
  };
  const onMessage = (m: ReceivedMessage): void => {
    if (settle === undefined) early.push(m);
    else if (fits(m)) settle(m);
  };
  session.client.on('message', onMessage);
  return {
    /** Waits (after the send) up to `ms`. */
    wait(ms: number): Promise<ReceivedMessage | undefined> {
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(undefined), ms);
        settle = (m) => {
          clearTimeout(timer);
          resolve(m);
        };
        const first = early.find(fits);
        if (first !== undefined) settle(first);
      });
    },
    stop: () => session.client.off('message', onMessage),
  };
}

/** The `ams dev send` command. */
export const devSendCommand: CommandSpec = {
  name: 'dev send',
  help: DEV_SEND_HELP,
  positionals: 1,
  options: {
    timeout: { type: 'string' },
    'base-url': { type: 'string' },
    'key-dir': { type: 'string' },
    file: { type: 'string' },
    'content-type': { type: 'string' },
  },
  async run(values, io, positionals) {
    const text = positionals[0];
    const file = stringOf(values, 'file');
    if (file === undefined && (text === undefined || text === '')) throw new UsageError('TEXT is required');
    if (file !== undefined && text !== undefined) throw new UsageError('give TEXT or --file, not both');
    const timeoutS = intOf(stringOf(values, 'timeout'), '--timeout', 1, 3600) ?? DEFAULT_REPLY_TIMEOUT_S;
    const session = await signInOwner(io, {
      baseUrl: stringOf(values, 'base-url'),
      keyDir: stringOf(values, 'key-dir'),
    });
    try {
      const conversationId = await conversationWithAgent(session).catch((err: unknown) => {
        throw explainOwnerError(err, session.baseUrl);
      });
      let sentSeq: number | undefined;
      const reply = nextReply(session, conversationId, () => sentSeq);
      try {
        await session.client.connect();
        sentSeq =
          file === undefined
            ? (await session.client.send(conversationId, { type: 'text', text: text ?? '' })).seq
            : (
                await session.client.files.upload(conversationId, file, {
                  contentType: stringOf(values, 'content-type') ?? 'application/octet-stream',
                })
              ).sent.seq;
        const got = await reply.wait(timeoutS * 1000);
        if (got === undefined) {
          throw new DevFailure(
            `no reply from agent ${session.agentId} within ${timeoutS} s: is the bot running? (--timeout S waits longer)`,
          );
        }
        io.stdout.write(`${payloadText(got.payload)}\n`);
        return EXIT.ok;
      } finally {
        reply.stop();
      }
    } finally {
      await session.client.signOut().catch(() => {});
    }
  },
};

/** Runs `ams dev send`. */
export function runDevSend(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(devSendCommand, argv, io);
}
