/**
 * The code blocks `.ci/newcomer.sh` copies verbatim into a fresh project and
 * runs (README's bot in WebSocket mode, docs/webhooks.md's first sample in
 * webhook mode) are still there, found by the same rule as the script: the
 * first ```ts block after a heading. A docs edit that removes or renames them
 * fails here, in seconds, instead of in the package checks.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (path: string): string => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

/** The first ```ts block after the first line that starts with `heading` (the awk rule of the script). */
function blockAfter(text: string, heading: string): string | undefined {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(heading));
  if (start < 0) return undefined;
  const open = lines.findIndex((l, i) => i > start && l === '```ts');
  if (open < 0) return undefined;
  const close = lines.findIndex((l, i) => i > open && l === '```');
  return close < 0 ? undefined : lines.slice(open + 1, close).join('\n');
}

const script = read('.ci/newcomer.sh');

describe('the samples .ci/newcomer.sh runs', () => {
  it("README.md: the bot after '## A bot in' is a WebSocket-mode echo bot that connects", () => {
    expect(script).toContain(`block_after "$repo/README.md" '## A bot in'`);
    const bot = blockAfter(read('README.md'), '## A bot in');
    expect(bot).toBeDefined();
    expect(bot).toContain("from 'agent-messaging-sdk'");
    expect(bot).toContain('new Agent(');
    expect(bot).not.toContain("mode: 'webhook'");
    expect(bot).toMatch(/reply\(`echo: \$\{[a-z]+\.text\}`\)/);
    expect(bot).toContain('await agent.connect()');
  });

  it("docs/webhooks.md: the first sample after '## The Agent in webhook mode' is a webhook-mode echo bot", () => {
    expect(script).toContain(`block_after "$repo/docs/webhooks.md" '## The Agent in webhook mode'`);
    const doc = read('docs/webhooks.md');
    const sample = blockAfter(doc, '## The Agent in webhook mode');
    expect(sample).toBeDefined();
    expect(sample).toContain("mode: 'webhook'");
    expect(sample).toMatch(/AMS_WEBHOOK_SECRET = '' \} = process\.env/);
    expect(sample).toContain('process.env.PORT');
    // Saved as bot.mjs and run with node, as the guide says: valid JavaScript, no TypeScript-only syntax (issue #28).
    expect(sample).not.toMatch(/!\)|!,|!;|: string|as string/);
    expect(script).toContain('node --env-file=.env bot.mjs');
    expect(sample).toMatch(/reply\(`echo: \$\{[a-z]+\.text\}`\)/);
    expect(sample).toContain('await agent.connect()');
    // The guide registers the webhook URL with `ams dev bootstrap --webhook-url`, before the sample.
    const section = doc.slice(doc.indexOf('## The Agent in webhook mode'), doc.indexOf(sample!));
    expect(section).toMatch(/ams dev bootstrap --webhook-url http:\/\/127\.0\.0\.1:\d+\/webhook/);
  });

  it('both docs tell the newcomer how to talk to the bot the way the script does', () => {
    // `ams` reads .env itself (issue #28): no `node --env-file=.env node_modules/.bin/ams`.
    expect(script).toContain('npx --no-install ams dev send "hello"');
    for (const doc of ['README.md', 'docs/webhooks.md']) {
      expect(read(doc)).toContain('`npx ams dev send "hello"` prints `echo: hello`');
      expect(read(doc)).not.toContain('node_modules/.bin/ams');
    }
  });

  it("README.md: two commands after 'Against a local server', run verbatim by the script (issue #28)", () => {
    const readme = read('README.md');
    const from = readme.indexOf('Against a local server');
    expect(from).toBeGreaterThan(0);
    const blocks = [...readme.slice(from).matchAll(/^```sh\n([^\n]*)\n```$/gm)].slice(0, 2).map((m) => m[1]);
    expect(blocks).toEqual([
      'npx ams serve --dev --port 8080 --data .ams',
      'npx ams dev bootstrap > .env && node --env-file=.env bot.mjs',
    ]);
    expect(script).toContain(`serve_cmd=$(sh_block "$repo/README.md" 'Against a local server' 1)`);
    expect(script).toContain(`bot_cmd=$(sh_block "$repo/README.md" 'Against a local server' 2)`);
    expect(script).toContain('bash -c "$bot_cmd"');
  });

  it('the script runs in CI after the type matrix', () => {
    const run = read('.ci/run');
    expect(run).toMatch(
      /bash \.ci\/types\.sh "\$tarball" "\$dev_tarball" &&\n\s*bash \.ci\/newcomer\.sh "\$tarball" "\$dev_tarball"/,
    );
  });
});
