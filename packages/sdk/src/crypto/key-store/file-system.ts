/**
 * The few file-system steps {@link FileKeyStore} takes, behind a seam so
 * tests can make any step fail (simulating a crash) without touching the
 * real disk semantics. {@link nodeFileSystem} is the real thing.
 *
 * @module
 */
import { nodeFs } from './file-system-builtins.js';

/** File-system operations used by {@link FileKeyStore}. Errors are Node errors with a `code`. */
export interface FileKeyStoreFs {
  /** Reads a whole file. */
  readFile(path: string): Promise<Uint8Array>;
  /** Creates `path` exclusively with `mode`, writes `data`, fsyncs the file and closes it. */
  writeNewFile(path: string, data: Uint8Array, mode: number): Promise<void>;
  /** Renames atomically within one directory, replacing `to`. */
  rename(from: string, to: string): Promise<void>;
  /** fsyncs a directory, making renames and unlinks in it durable. */
  syncDirectory(path: string): Promise<void>;
  /** Removes a file. */
  unlink(path: string): Promise<void>;
  /** Names in a directory. */
  readdir(path: string): Promise<string[]>;
  /** Creates a directory and its parents with `mode`; true when the directory itself was created. */
  mkdir(path: string, mode: number): Promise<boolean>;
  /** Sets permission bits. */
  chmod(path: string, mode: number): Promise<void>;
  /**
   * Makes `to` a hard link to `from`, failing with `EEXIST` when `to` exists
   * (the atomic create-if-absent behind {@link FileKeyStore.saveIfAbsent}).
   * Optional: without it `saveIfAbsent` checks, then saves (one writer only).
   */
  link?(from: string, to: string): Promise<void>;
}

/** The real file system (node:fs/promises, loaded on first use). */
export const nodeFileSystem: FileKeyStoreFs = {
  readFile: async (path) => new Uint8Array(await nodeFs().readFile(path)),
  async writeNewFile(path, data, mode) {
    const handle = await nodeFs().open(path, 'wx', mode);
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  rename: (from, to) => nodeFs().rename(from, to),
  async syncDirectory(path) {
    // Windows cannot open a directory for fsync; NTFS journals the rename itself.
    if (process.platform === 'win32') return;
    const handle = await nodeFs().open(path, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
  unlink: (path) => nodeFs().unlink(path),
  readdir: (path) => nodeFs().readdir(path),
  mkdir: async (path, mode) => (await nodeFs().mkdir(path, { recursive: true, mode })) !== undefined,
  chmod: (path, mode) => nodeFs().chmod(path, mode),
  link: (from, to) => nodeFs().link(from, to),
};
