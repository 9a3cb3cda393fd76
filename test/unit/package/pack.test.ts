/**
 * What `npm pack` of each of the two packages would publish: only the build
 * (without sourcemaps), the README, the changelog, the guides (docs/*.md, so
 * the README's links resolve for an npm user), the license and package.json;
 * no tests, fixtures, sources or CI files; and nothing in the published files
 * that looks like a secret or a test fixture's private key. Needs
 * `npm run build` first (CI builds before it tests).
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

/** The workspace's two published packages, by folder. */
const PACKAGES = [
  {
    dir: 'packages/sdk',
    name: 'agent-messaging-sdk',
    entries: ['dist/index.js', 'dist/index.cjs', 'dist/index.d.ts'],
  },
  {
    dir: 'packages/dev',
    name: '@agent-messaging/dev',
    entries: ['dist/testing/index.js', 'dist/cli/index.js'],
  },
] as const;

/** The file list of `npm pack --dry-run --json` in one package's folder (after scripts/stage-package.mjs). */
function packedFiles(dir: string): PackFile[] {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(process.execPath, [`${root}scripts/stage-package.mjs`, `${root}${dir}`], { stdio: 'ignore' });
  const out = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: `${root}${dir}`,
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

describe.each(PACKAGES)('the published package $name', ({ dir, entries }) => {
  let files: PackFile[];
  const readPacked = (path: string): string => read(`${dir}/${path}`);
  beforeAll(() => {
    if (!existsSync(`${root}${dir}/${entries[0]}`))
      throw new Error(`${dir}/dist is missing: run \`npm run build\` first.`);
    files = packedFiles(dir);
  });

  it('holds only dist/ (no sourcemaps), docs/*.md (and their images), README.md, CHANGELOG.md, LICENSE and package.json', () => {
    const allowed = (p: string): boolean =>
      (p.startsWith('dist/') && !p.endsWith('.map')) ||
      /^docs\/[^/]+\.md$/.test(p) ||
      /^docs\/images\/[^/]+\.png$/.test(p) || // screenshots the guides show (docs/console.md)
      ['README.md', 'CHANGELOG.md', 'package.json', 'LICENSE'].includes(p);
    expect(files.length).toBeGreaterThan(10);
    expect(files.map((f) => f.path).filter((p) => !allowed(p))).toEqual([]);
    for (const entry of [...entries, 'README.md', 'CHANGELOG.md', 'LICENSE', 'docs/README.md']) {
      expect(files.map((f) => f.path)).toContain(entry);
    }
  });

  it('runs no script when installed: the build runs before packing (prepack), not on install (prepare)', () => {
    const { scripts = {} } = JSON.parse(read(`${dir}/package.json`)) as { scripts?: Record<string, string> };
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(scripts).not.toHaveProperty(hook);
    expect(scripts['prepack']).toBe('npm run build && node ../../scripts/stage-package.mjs .');
  });

  it('holds no tests, fixtures, sources, CI files or packed tarballs', () => {
    const forbidden = /(^|\/)(test|tests|fixtures|src|\.ci|bench|scripts|examples)\/|\.test\.|\.tgz$/;
    expect(files.map((f) => f.path).filter((p) => forbidden.test(p))).toEqual([]);
  });

  it('embeds no agent token, PEM private key or fixture secret', () => {
    const secrets = fixtureSecrets();
    expect(secrets.length).toBeGreaterThanOrEqual(10); // 8 fixture keys (hex and base64) and 2 webhook secrets
    const findings: string[] = [];
    for (const { path } of files) {
      // The envelope test vectors (v1.0 and v1.1 blocks) are published on purpose (keys derived from labels, for interoperability);
      // the rest of docs/envelope.md is scanned like every other file.
      const text =
        path === 'docs/envelope.md'
          ? readPacked(path).replace(
              /<!-- vectors(-v[\d.]+)?:begin -->[\s\S]*?<!-- vectors(-v[\d.]+)?:end -->/g,
              '',
            )
          : readPacked(path);
      if (AGENT_TOKEN.test(text)) findings.push(`${path}: hsk_ token`);
      if (PEM_PRIVATE_KEY.test(text)) findings.push(`${path}: PEM private key`);
      for (const s of secrets) if (text.includes(s)) findings.push(`${path}: a fixture secret`);
    }
    expect(findings).toEqual([]);
  });
});

describe('the two packages', () => {
  it('are released in lockstep: same version, the dev package depends on exactly that SDK', () => {
    const sdk = JSON.parse(read('packages/sdk/package.json')) as {
      version: string;
      dependencies: Record<string, string>;
    };
    const dev = JSON.parse(read('packages/dev/package.json')) as {
      version: string;
      dependencies: Record<string, string>;
    };
    expect(dev.version).toBe(sdk.version);
    expect(dev.dependencies['agent-messaging-sdk']).toBe(sdk.version);
  });

  it("keep the SDK lean: five dependencies, none of the reference server's", () => {
    const sdk = JSON.parse(read('packages/sdk/package.json')) as { dependencies: Record<string, string> };
    expect(Object.keys(sdk.dependencies).sort()).toEqual([
      'eventemitter3',
      'hash-wasm',
      'undici',
      'ws',
      'zod',
    ]);
  });
});
