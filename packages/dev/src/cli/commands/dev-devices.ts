/**
 * `ams dev devices [--remove ID]`: the owner's devices (an account has at
 * most 5), and a way to free a slot.
 *
 * @module
 */
import { EXIT, stringOf } from '../args.js';
import { runCommand, type CommandSpec } from '../command.js';
import { writeJson, type CliIo } from '../io.js';
import { signInOwner } from '../dev/owner.js';

/** Help text of `ams dev devices`. */
export const DEV_DEVICES_HELP = `Usage: ams dev devices [--remove ID] [--json] [--base-url URL] [--key-dir DIR]

Lists the devices of the agent's owner (GET /users/me/devices): id, name,
last seen, and '*' for the CLI's own device. An account has at most 5; with
--remove ID, signs that device out and frees its slot
(DELETE /users/me/devices/:id). Reads what 'ams dev bootstrap' printed.

Options:
  --remove ID     Remove this device
  --json          Print one JSON object per device
  --base-url URL  Reference server (default $AMS_BASE_URL)
  --key-dir DIR   Where the CLI's state file is kept (default $AMS_KEY_DIR)
  -h, --help      Show this help
`;

/** The `ams dev devices` command. */
export const devDevicesCommand: CommandSpec = {
  name: 'dev devices',
  help: DEV_DEVICES_HELP,
  options: {
    remove: { type: 'string' },
    json: { type: 'boolean' },
    'base-url': { type: 'string' },
    'key-dir': { type: 'string' },
  },
  async run(values, io) {
    const session = await signInOwner(io, {
      baseUrl: stringOf(values, 'base-url'),
      keyDir: stringOf(values, 'key-dir'),
    });
    try {
      const remove = stringOf(values, 'remove');
      if (remove !== undefined) {
        await session.client.revokeDevice(remove);
        io.stdout.write(`removed device ${remove}\n`);
        return EXIT.ok;
      }
      for (const d of await session.client.devices()) {
        if (values['json'] === true)
          writeJson(io, { device_id: d.deviceId, name: d.name, current: d.current });
        else io.stdout.write(`${d.current ? '*' : ' '} ${d.deviceId}  ${d.name}\n`);
      }
      return EXIT.ok;
    } finally {
      await session.client.signOut().catch(() => {});
    }
  },
};

/** Runs `ams dev devices`. */
export function runDevDevices(argv: readonly string[], io: CliIo): Promise<number> {
  return runCommand(devDevicesCommand, argv, io);
}
