/**
 * The generated parts of docs/ say what the code says: each block between `<!-- NAME -->` and
 * `<!-- /NAME -->` equals what test/helpers/docs-generated.ts makes from the settings table, the
 * commands and the memory plan. A page that drifted fails here with the block's name; run
 * `UPDATE_DOCS=1 npx vitest run test/unit/repo/docs-generated.test.ts` to rewrite it, then read the
 * diff: the prose around a block may need to follow. And the README's table of commands names every
 * command of the program, in the order of its --help.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCommands } from '../../../src/cli/program.js';
import { projectRoot } from '../../../src/util/paths.js';
import { blockNames, fillBlocks, generatedBlocks } from '../../helpers/docs-generated.js';
import { docPages } from '../../helpers/docs-markdown.js';

const UPDATE = process.env['UPDATE_DOCS'] === '1';
const CONFIGURATION_PAGE = 'docs/configuration.md';

describe('the README', () => {
  it('lists every command of the program in its table of commands, and no other', async () => {
    const readme = readFileSync(join(projectRoot(), 'README.md'), 'utf8');
    const listed = [...readme.matchAll(/^\| `([a-z]+)` \|/gm)].map((m) => m[1]);
    expect(listed).toEqual((await loadCommands()).map((c) => c.name));
  });
});

describe('the generated blocks of docs/', () => {
  it('docs/configuration.md holds the settings of every command, every variable and the memory plan', async () => {
    const text = readFileSync(join(projectRoot(), CONFIGURATION_PAGE), 'utf8');
    const names = blockNames(text);
    const commands = (await loadCommands()).map((c) => `settings:${c.name}`);
    expect(names).toEqual(expect.arrayContaining(['settings:environment', 'memory-plan', ...commands]));
  });

  it.each(docPages())('%s: every generated block says what the code says', async (page) => {
    const path = join(projectRoot(), page);
    const text = readFileSync(path, 'utf8');
    const filled = fillBlocks(text, await generatedBlocks());
    if (UPDATE && filled !== text) writeFileSync(path, filled);
    else expect(filled, `${page} drifted: UPDATE_DOCS=1 npx vitest run ${import.meta.filename}`).toBe(text);
  });
});
