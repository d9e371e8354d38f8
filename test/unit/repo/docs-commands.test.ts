/**
 * The commands of docs/ run as written. Every shell block marked with a `<!-- runnable -->` line
 * right before its fence runs against a file the demo made (`data/demo.duckdb` in the block is that
 * file), and each of its `bin/transcript-sync` lines must exit 0. A page's blocks run in page order
 * in one folder of their own, as a reader following the page would: a file one block writes, the
 * next may read. Lines run in-process (runMain, the program's own main) as test/helpers/docs-shell.ts
 * reads them, which refuses any other shell; bash itself checks that reading (it runs the block
 * with the program replaced by a function that reports its arguments). A process per line would
 * cost the suite several times the CPU. A block that needs a key, Redis or a running sync is not marked
 * runnable; its commands are covered by the tests of their features. Every word the pages search
 * transcripts for (`transcript_search('…')`, in any block) finds utterances in the demo file.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runMain } from '../../helpers/cli.js';
import { docPages, type RunnableBlock, readDoc, runnableBlocks } from '../../helpers/docs-markdown.js';
import { BIN_WORD, parseShell, type ShellStep } from '../../helpers/docs-shell.js';
import { SCRATCH } from '../../helpers/tmp.js';

const DEMO_FILE = 'data/demo.duckdb';
const BLOCKS = docPages().flatMap((page) => runnableBlocks(page, readDoc(page)));

/** The runnable blocks by page, in page order. */
const PAGES: [string, RunnableBlock[]][] = [];
for (const block of BLOCKS) {
  const last = PAGES.at(-1);
  if (last?.[0] === block.page) last[1].push(block);
  else PAGES.push([block.page, [block]]);
}

let root = '';
let db = '';

beforeAll(async () => {
  root = mkdtempSync(join(SCRATCH, 'tsync-docs-'));
  db = join(root, 'demo.duckdb');
  const demo = await runMain(['demo', '--db', db, '--jobs', '40']);
  expect(demo.code, demo.stderr).toBe(0);
});

afterAll(() => {
  if (root !== '') rmSync(root, { recursive: true, force: true });
});

/**
 * The arguments bash gives each `bin/transcript-sync` of `text`, run in an empty folder with the
 * program replaced by a function that writes its argument count and arguments to fd 3.
 */
function bashArgs(text: string): string[][] {
  const scratch = mkdtempSync(join(root, 'bash-'));
  const record = join(scratch, '.args');
  const fd = openSync(record, 'w');
  try {
    // It reads its stdin to the end, as the program does with `-`: a writer piping into it must
    // never meet a closed pipe (SIGPIPE, exit 141 under pipefail).
    const program = `${BIN_WORD}() { printf '%s\\0' "$#" "$@" >&3; cat >/dev/null; }`;
    const ran = spawnSync('bash', ['-euo', 'pipefail', '-c', `${program}\n${text}`], {
      cwd: scratch,
      stdio: ['ignore', 'ignore', 'pipe', fd],
      encoding: 'utf8',
    });
    expect(ran.status, ran.stderr).toBe(0);
  } finally {
    closeSync(fd);
  }
  const fields = readFileSync(record, 'utf8').split('\0');
  const calls: string[][] = [];
  for (let i = 0; i < fields.length - 1; ) {
    const count = Number(fields[i]);
    calls.push(fields.slice(i + 1, i + 1 + count));
    i += 1 + count;
  }
  return calls;
}

/**
 * Runs one step in `cwd`: the program's relative paths (files, --out, --read, paths inside SQL)
 * resolve against the process's working folder, so it is that folder while the step runs.
 */
async function runStep(step: ShellStep, cwd: string): Promise<{ code: number; stderr: string }> {
  if (step.kind === 'write') {
    writeFileSync(join(cwd, step.file), step.text);
    return { code: 0, stderr: '' };
  }
  const args = step.args.map((arg) => arg.replaceAll(DEMO_FILE, db));
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const result = await runMain(args, {}, step.stdin);
    if (step.out !== undefined) writeFileSync(join(cwd, step.out), result.stdout);
    return result;
  } finally {
    process.chdir(before);
  }
}

function stepsOf(block: RunnableBlock, where: string): ShellStep[] {
  try {
    return parseShell(block.text);
  } catch (error) {
    throw new Error(`${where}: ${(error as Error).message}`);
  }
}

describe('the runnable blocks of docs/', () => {
  test('are found on the pages that promise commands to try', () => {
    const pages = PAGES.map(([page]) => page);
    for (const page of [
      'docs/configuration.md',
      'docs/guarantees.md',
      'docs/operating.md',
      'docs/querying.md',
      'docs/reports.md',
      'docs/schema.md',
    ])
      expect(pages, page).toContain(page);
  });

  test.each(PAGES)('%s: every runnable block runs as written', async (page, blocks) => {
    const cwd = join(root, basename(page, '.md'));
    mkdirSync(cwd, { recursive: true });
    for (const block of blocks) {
      const where = `${block.page}:${block.line}`;
      expect(block.language, `${where}: a runnable block is a shell block`).toBe('sh');
      const steps = stepsOf(block, where);
      expect(
        steps.flatMap((step) => (step.kind === 'run' ? [step.args] : [])),
        `${where}: read as bash reads it`,
      ).toEqual(bashArgs(block.text));
      expect(
        steps.some((step) => step.kind === 'run'),
        `${where}: a runnable block runs the program`,
      ).toBe(true);
      for (const step of steps) {
        const result = await runStep(step, cwd);
        const line = step.kind === 'run' ? step.line : `cat > ${step.file}`;
        expect(result.code, `${where}: ${line}\n${result.stderr}`).toBe(0);
      }
    }
  });
});

describe('the transcript searches of docs/', () => {
  const words = new Set(
    docPages().flatMap((page) =>
      [...readDoc(page).matchAll(/transcript_search\('([^']+)'\)/g)].map((m) => m[1]!),
    ),
  );

  test('are found on the pages', () => {
    expect(words.size).toBeGreaterThan(0);
  });

  // The demo file is enough to try every example: a word its transcripts lack would show nothing.
  test.each([...words])('transcript_search(%j) finds utterances in the demo file', async (word) => {
    const sql = `SELECT count(*) AS hits FROM transcript_search('${word}') WHERE source = 'transcription'`;
    const result = await runMain(['query', '--db', db, '--format', 'csv', sql]);
    expect(result.code, result.stderr).toBe(0);
    expect(Number(result.stdout.split('\n')[1])).toBeGreaterThan(0);
  });
});
