/**
 * Builds docs/protocol-names.md from packages/sdk/src/core/protocol/service-names.ts: the
 * one table of every path and frame name the service interface leaves "not
 * shown". Run `npm run docs:names`; a test fails when the file is out of date.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ARTIFACT_FRAMES,
  ARTIFACT_ROUTES,
  CORE_ROUTES,
  FILE_FRAMES,
  FILE_ROUTES,
  GROUP_FRAMES,
  GROUP_ROUTES,
  MANIFEST_FRAMES,
  MANIFEST_ROUTES,
  MIGRATION_FRAMES,
  MIGRATION_ROUTES,
  PRESENCE_FRAMES,
  PRESENCE_ROUTES,
  SCALE_FRAMES,
  STREAM_FRAMES,
  STREAM_ROUTES,
  type ServiceRoute,
} from '../packages/sdk/src/core/protocol/service-names.js';

const docs = join(dirname(fileURLToPath(import.meta.url)), '..', 'docs');

const SECTIONS: ReadonlyArray<readonly [string, Record<string, ServiceRoute>, Record<string, string>]> = [
  ['Core (conversations, keys, webhook registration, WebSocket address)', CORE_ROUTES, {}],
  ['Streamed replies', STREAM_ROUTES, STREAM_FRAMES],
  ['Artifacts, forwarding, reactions', ARTIFACT_ROUTES, ARTIFACT_FRAMES],
  ['Encrypted files', FILE_ROUTES, FILE_FRAMES],
  ['Groups', GROUP_ROUTES, GROUP_FRAMES],
  ['Capability manifests and data grants', MANIFEST_ROUTES, MANIFEST_FRAMES],
  ['Device migration', MIGRATION_ROUTES, MIGRATION_FRAMES],
  ['Status (#26)', PRESENCE_ROUTES, PRESENCE_FRAMES],
  ['Copies of one agent sharing delivery', {}, SCALE_FRAMES],
];

/** The text of docs/protocol-names.md. */
export function buildServiceNames(): string {
  const out = [
    '# Paths and frame names we chose',
    '',
    'The service interface fixes some paths (`/auth/*`, `/keys/backup`, `/agents/:id/messages`, `/r2/<key>`',
    '…) and frames (`auth`, `auth.ok`, `auth.error`, `auth.renew`, `session.invalidated`). Every other path and',
    'frame name is a gap decision, and all of them live in one module, `src/core/protocol/service-names.ts`:',
    'the reference server mounts its routes from it and the SDK builds its requests from it, so a real',
    "service's names replace ours in that one file. This page is generated from it (`npm run docs:names`).",
  ];
  for (const [title, routes, frames] of SECTIONS) {
    const routeRows = Object.entries(routes);
    const frameRows = Object.entries(frames);
    if (routeRows.length === 0 && frameRows.length === 0) continue;
    out.push('', `## ${title}`, '');
    if (routeRows.length > 0) {
      out.push('| Name | Method | Path | Auth | What |', '|---|---|---|---|---|');
      for (const [name, r] of routeRows)
        out.push(`| \`${name}\` | ${r.method} | \`${r.path}\` | ${r.auth} | ${r.summary} |`);
    }
    if (frameRows.length > 0) {
      if (routeRows.length > 0) out.push('');
      out.push('| Name | Frame `type` |', '|---|---|');
      for (const [name, type] of frameRows) out.push(`| \`${name}\` | \`${type}\` |`);
    }
  }
  return out.join('\n') + '\n';
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(join(docs, 'protocol-names.md'), buildServiceNames());
  console.log('docs/protocol-names.md written');
}
