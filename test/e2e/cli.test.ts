/**
 * The program itself, as a user runs it: bin/transcript-sync from the built dist/ (each command's
 * --help, an unknown command, what the settings say and the demo whose hint is run, in-process,
 * through the same main()).
 */
import { spawn } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DUCKDB_ALLOCATOR_CONF } from '../../src/memory/budget.js';
import { openWriter } from '../../src/store/open-file.js';
import { projectRoot } from '../../src/util/paths.js';
import { BIN, childEnv, runCli, runMain } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const { version: VERSION } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as {
  version: string;
};

const COMMANDS = [
  'demo',
  'sync',
  'status',
  'simulate',
  'worker',
  'enqueue',
  'report',
  'query',
  'export',
  'quarantine',
];

describe('transcript-sync', () => {
  it('--help lists every command', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of COMMANDS) expect(result.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  });

  it.each(COMMANDS)('%s --help shows its usage and exits 0', async (command) => {
    const result = await runMain([command, '--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Usage: transcript-sync ${command}`);
    expect(result.stdout).toContain('--help');
  });

  it('--version prints the package version (the bin prints it too: see the launcher test below)', async () => {
    const result = await runMain(['--version']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(`${VERSION}\n`);
  });

  it('an unknown command or flag is a one-line error with exit 2 that points at --help', async () => {
    const unknown = await runMain(['synk']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--help');
    const badFlag = await runMain(['status', '--colour']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr.trim().split('\n')).toHaveLength(1);
    expect(badFlag.stderr).toContain('transcript-sync status --help');
  });

  it('a flag it does not know, lacking its value or given one it does not take is one line of our own', async () => {
    const cases: [string[], string][] = [
      [['status', '--bogus'], 'status: unknown flag --bogus'],
      [['query', '-x', 'SELECT 1'], 'query: unknown flag -x'],
      [['config', 'show', '--bogus=1'], 'config: unknown flag --bogus'],
      [['status', '--db'], 'status: --db needs a value'],
      [['status', '--json=yes'], 'status: --json takes no value (got --json=yes)'],
      [
        ['status', '--db', '--json'],
        'status: --db needs a value, not the flag --json (write --db=--json if that is the value)',
      ],
    ];
    for (const [args, said] of cases) {
      const result = await runMain(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toBe(`transcript-sync: ${said}; see \`transcript-sync ${args[0]} --help\`\n`);
    }
  });

  it("the demo's closing hint is a command that runs from the clone as printed", async () => {
    const db = join(tempDir(), 'demo.duckdb');
    const demo = await runMain(['demo', '--jobs', '20', '--db', db]);
    expect(demo.code, demo.stderr).toBe(0);
    const hint = /^Explore it: (.+)$/m.exec(demo.stdout)?.[1];
    expect(hint).toMatch(/^bin\/transcript-sync query --db /);
    const child = spawn('sh', ['-c', hint ?? 'false'], {
      env: childEnv({}),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toMatch(/pre-recorded/);
  });

  it('query - reads its SQL from the process stdin (bound by main.ts)', async () => {
    const db = join(tempDir(), 'empty.duckdb');
    await (await openWriter(db)).close();
    const child = spawn(process.execPath, [BIN, 'query', '-', '--db', db, '--format', 'csv'], {
      env: childEnv({}),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stdin.end('SELECT 42 AS answer;\n');
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(stdout).toBe('answer\n42\n');
  });

  it("gives DuckDB's allocator its settings before DuckDB loads, and keeps the environment's own", async () => {
    // The entry as bin/ runs it; DuckDB's jemalloc reads DUCKDB_JE_MALLOC_CONF once, as it loads.
    const entry = join(projectRoot(), 'dist', 'src', 'cli', 'main.js');
    const script = `
      import { createRequire } from 'node:module';
      const duckdbLoaded = () =>
        Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('@duckdb'));
      const { runProcess } = await import(${JSON.stringify(entry)});
      const before = duckdbLoaded();
      await runProcess({ jobs: async () => ({}) });
      process.stderr.write(JSON.stringify({ before, conf: process.env.DUCKDB_JE_MALLOC_CONF ?? null }));`;
    const run = async (env: Record<string, string>) => {
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, 'status', '--help'], {
        env: childEnv(env),
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      await new Promise((resolve) => child.on('close', resolve));
      return JSON.parse(stderr) as { before: boolean; conf: string | null };
    };
    expect(await run({})).toEqual({ before: false, conf: DUCKDB_ALLOCATOR_CONF });
    expect(await run({ DUCKDB_JE_MALLOC_CONF: 'dirty_decay_ms:1000' })).toEqual({
      before: false,
      conf: 'dirty_decay_ms:1000',
    });
  });

  it("loads no DuckDB with the program, its settings table or any command's module, only when a command opens a file", async () => {
    const program = join(projectRoot(), 'dist', 'src', 'cli', 'program.js');
    // Every command's module, as `<command> --help` loads it.
    const script = `
      import { createRequire } from 'node:module';
      const { loadCommands } = await import(${JSON.stringify(program)});
      const commands = await loadCommands();
      const loaded = Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('@duckdb'));
      process.stderr.write(JSON.stringify({ loaded, commands: commands.length > 10 }));`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      env: childEnv({}),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    await new Promise((resolve) => child.on('close', resolve));
    expect(JSON.parse(stderr)).toEqual({ loaded: false, commands: true });
  });

  it("starts node with glibc's malloc settings, in the same process, and keeps the environment's own", async () => {
    // Run as a shell, an image or npm's link in node_modules/.bin runs it: the file itself, not
    // `node bin/transcript-sync`.
    const dir = tempDir('tsync-launch-');
    const probe = join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `process.stderr.write(JSON.stringify({ pid: process.pid, arenas: process.env.MALLOC_ARENA_MAX ?? null, ` +
        `mmap: process.env.MALLOC_MMAP_THRESHOLD_ ?? null }));`,
    );
    const link = join(dir, 'transcript-sync');
    symlinkSync(BIN, link);
    const run = async (file: string, env: Record<string, string>) => {
      const child = spawn(file, ['--version'], {
        env: childEnv({ NODE_OPTIONS: `--import=${probe}`, ...env }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(0);
      expect(stdout).toBe(`${VERSION}\n`);
      return {
        started: child.pid,
        ...(JSON.parse(stderr) as { pid: number; arenas: string | null; mmap: string | null }),
      };
    };
    const plain = await run(BIN, {});
    expect(plain).toEqual({ started: plain.pid, pid: plain.pid, arenas: '1', mmap: '262144' });
    expect(await run(link, {})).toMatchObject({ arenas: '1', mmap: '262144' });
    const own = await run(BIN, { MALLOC_ARENA_MAX: '4' });
    expect(own).toMatchObject({ arenas: '4', mmap: '262144' });
  });
});
