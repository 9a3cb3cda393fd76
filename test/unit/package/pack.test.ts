/**
 * What `npm pack` would publish: only the build, the README, the changelog,
 * the guides (docs/*.md, so the README's links resolve for an npm user), the
 * runnable examples (not the demo, which imports the sources) and
 * package.json; no tests, fixtures, sources or CI files; and nothing
 * in the published files (sourcemaps included) that looks like a secret or
 * a test fixture's private key. Needs `npm run build` first (CI builds
 * before it tests).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const read = (path: string): string => readFileSync(`${root}${path}`, 'utf8');

interface PackFile {
  readonly path: string;
  readonly size: number;
}

/** The file list of `npm pack --dry-run --json`. */
function packedFiles(): PackFile[] {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [report] = JSON.parse(out) as { files: PackFile[] }[];
  return report?.files ?? [];
}

/** Private keys and secrets of the test fixtures, hex and base64. */
function fixtureSecrets(): string[] {
  const vectors = read('test/fixtures/envelope/vectors.json');
  const hex = [...vectors.matchAll(/"(?:ephemeral_)?private_key": *"([0-9a-f]{64})"/g)].map((m) => m[1]!);
  const webhook = JSON.parse(read('test/fixtures/webhook/signed-deliveries.json')) as {
    secrets: Record<string, string>;
  };
  const b64 = hex.map((h) => Buffer.from(h, 'hex').toString('base64'));
  return [...new Set([...hex, ...b64, ...Object.values(webhook.secrets)])];
}

const AGENT_TOKEN = /hsk_[A-Za-z0-9]{40}/;
const PEM_PRIVATE_KEY = /-----BEGIN [A-Z ]*PRIVATE KEY-----/;

describe('the published package', () => {
  let files: PackFile[];
  beforeAll(() => {
    if (!existsSync(`${root}dist/index.js`)) throw new Error('dist/ is missing: run `npm run build` first.');
    files = packedFiles();
  });

  it('holds only dist/, docs/*.md (and their images), examples, README.md, CHANGELOG.md, package.json (and LICENSE when present)', () => {
    const allowed = (p: string): boolean =>
      p.startsWith('dist/') ||
      /^docs\/[^/]+\.md$/.test(p) ||
      /^docs\/images\/[^/]+\.png$/.test(p) || // screenshots the guides show (docs/console.md)
      /^examples\/([^/]+\.ts|README\.md)$/.test(p) ||
      ['README.md', 'CHANGELOG.md', 'package.json', 'LICENSE'].includes(p);
    expect(files.length).toBeGreaterThan(10);
    expect(files.map((f) => f.path).filter((p) => !allowed(p))).toEqual([]);
    for (const entry of ['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts', 'dist/testing/index.js']) {
      expect(files.map((f) => f.path)).toContain(entry);
    }
    if (existsSync(`${root}LICENSE`)) expect(files.map((f) => f.path)).toContain('LICENSE');
    // The examples import ./env.js: it ships with them.
    expect(files.map((f) => f.path)).toContain('examples/env.ts');
    expect(files.map((f) => f.path)).toContain('CHANGELOG.md');
  });

  it('runs no script when installed: the build runs before packing (prepack), not on install (prepare)', () => {
    const { scripts = {} } = JSON.parse(read('package.json')) as { scripts?: Record<string, string> };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(scripts).not.toHaveProperty(hook);
    expect(scripts['prepack']).toBe('npm run build');
  });

  it('holds no tests, fixtures, sources, CI files, the demo or packed tarballs', () => {
    const forbidden =
      /(^|\/)(test|tests|fixtures|src|\.ci|bench|scripts)\/|\.test\.|\.tgz$|^examples\/demo\.ts$/;
    expect(files.map((f) => f.path).filter((p) => forbidden.test(p))).toEqual([]);
  });

  it('embeds no agent token, PEM private key or fixture secret, sourcemaps included', () => {
    const secrets = fixtureSecrets();
    expect(secrets.length).toBeGreaterThanOrEqual(10); // 8 fixture keys (hex and base64) and 2 webhook secrets
    const findings: string[] = [];
    for (const { path } of files) {
      // The envelope test vectors (v1.0 and v1.1 blocks) are published on purpose (keys derived from labels, for interoperability);
      // the rest of docs/envelope.md is scanned like every other file.
      const text =
        path === 'docs/envelope.md'
          ? read(path).replace(
              /<!-- vectors(-v[\d.]+)?:begin -->[\s\S]*?<!-- vectors(-v[\d.]+)?:end -->/g,
              '',
            )
          : read(path);
      if (AGENT_TOKEN.test(text)) findings.push(`${path}: hsk_ token`);
      if (PEM_PRIVATE_KEY.test(text)) findings.push(`${path}: PEM private key`);
      for (const s of secrets) if (text.includes(s)) findings.push(`${path}: a fixture secret`);
    }
    expect(findings).toEqual([]);
  });

  it('ships sourcemaps that point at the package sources only, never at tests', () => {
    const maps = files.filter((f) => f.path.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    for (const { path } of maps) {
      const map = JSON.parse(read(path)) as { sources: string[] };
      expect(
        map.sources.filter((s) => /(^|\/)(test|fixtures)\//.test(s)),
        path,
      ).toEqual([]);
    }
  });
});
