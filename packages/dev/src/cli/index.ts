/**
 * The `ams` command-line tool. Uses only the package's public API.
 *
 * @module
 */
import { runCli } from './run.js';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`ams: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
