/**
 * The owner's CLI state for `ams dev send|chat|devices`: one fixed device id
 * and the protection password of the key backup the CLI set up on first use.
 * Kept in a JSON file next to the agent's keys (`$AMS_KEY_DIR`), written
 * atomically (temporary file, then rename) with mode 0600. One file per
 * service and owner, so a second `ams dev bootstrap` gets its own.
 *
 * @module
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

/** What the CLI remembers about the owner on this machine. */
export interface DevOwnerState {
  /** The device id every sign-in of the CLI uses (one device slot, reused). */
  readonly deviceId: string;
  /** Unlocks the key backup the CLI created; undefined until keys are set up. */
  readonly protectionPassword?: string | undefined;
}

const StateSchema = z.object({
  version: z.literal(1),
  base_url: z.string(),
  email: z.string(),
  device_id: z.string().min(1).max(256),
  protection_password: z.string().min(8).optional(),
});

/** The state file of `email` at `baseUrl` under `dir`. */
export function devStatePath(dir: string, baseUrl: string, email: string): string {
  const id = createHash('sha256').update(`${baseUrl}\n${email.toLowerCase()}`).digest('hex').slice(0, 16);
  return join(dir, `dev-owner-${id}.json`);
}

/**
 * Reads the state at `path`, or makes a new one (a fresh device id) when
 * there is none. A file that does not parse is an error, never overwritten.
 */
export async function loadDevState(path: string): Promise<DevOwnerState & { readonly fresh: boolean }> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    return { deviceId: randomUUID(), fresh: true };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = StateSchema.safeParse(json);
  if (!parsed.success) throw new Error(`${path} is not a state file of this CLI: remove it to start over`);
  return {
    deviceId: parsed.data.device_id,
    protectionPassword: parsed.data.protection_password,
    fresh: false,
  };
}

/** Writes the state atomically with mode 0600 (the directory is created 0700 if missing). */
export async function saveDevState(
  path: string,
  who: { baseUrl: string; email: string },
  state: DevOwnerState,
): Promise<void> {
  const dir = join(path, '..');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const body: z.infer<typeof StateSchema> = {
    version: 1,
    base_url: who.baseUrl,
    email: who.email,
    device_id: state.deviceId,
    ...(state.protectionPassword === undefined ? {} : { protection_password: state.protectionPassword }),
  };
  const tmp = `${path}.${randomUUID()}.tmp`;
  const file = await open(tmp, 'wx', 0o600);
  try {
    await file.writeFile(`${JSON.stringify(body, null, 2)}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
  try {
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}
