/**
 * `ams webhook sign|verify`.
 *
 * @module
 */
import { runGroup } from '../command.js';
import type { CliIo } from '../io.js';

/** Help text of `ams webhook`. */
export const WEBHOOK_HELP = `Usage: ams webhook <command> [options]

Commands:
  sign      Sign a test delivery and POST it to a local receiver (or --print it)
  verify    Check a captured delivery and say precisely why it would be rejected

Run 'ams webhook <command> --help' for the options of each.
`;

/** Runs `ams webhook …`. */
export function runWebhook(argv: readonly string[], io: CliIo): Promise<number> {
  return runGroup(
    'webhook',
    WEBHOOK_HELP,
    {
      sign: async (a, i) => (await import('./webhook-sign.js')).runWebhookSign(a, i),
      verify: async (a, i) => (await import('./webhook-verify.js')).runWebhookVerify(a, i),
    },
    argv,
    io,
  );
}
