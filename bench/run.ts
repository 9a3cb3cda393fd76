/**
 * `npm run bench`: runs every bench/*.bench.ts (or those named on the command
 * line) in turn. Each exports a default async function that prints its tables.
 * Benchmarks are never part of the test suite.
 */
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import os from 'node:os';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

console.log(`# agent-messaging-sdk benchmarks`);
console.log(
  `node ${process.version}, ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${new Date().toISOString()}`,
);
for (const f of files) {
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { default: () => Promise<void> };
  console.log(`\n## ${f.replace('.bench.ts', '')}`);
  await mod.default();
}
