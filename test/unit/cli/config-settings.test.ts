/**
 * One settings table for every flag: each flag any command accepts is a setting of
 * src/config/settings.ts (its help, default and validation there), `config show` lists every
 * setting of the worker with its environment variable, and docs/configuration.md's table of
 * variables says what the table says (test/unit/repo/docs-generated.test.ts keeps the whole page).
 * A command's flags are found by asking its own parser about every name the CLI's sources spell, so
 * a flag parsed by hand anywhere in src/cli fails here.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type Command, commandHelp, parseCommandArgs } from '../../../src/cli/command.js';
import * as settingsModule from '../../../src/config/settings.js';
import { ConfigError } from '../../../src/errors.js';
import { projectRoot } from '../../../src/util/paths.js';
import { runMain } from '../../helpers/cli.js';

interface TableRow {
  readonly flag?: string;
  readonly env?: string;
  readonly default?: string;
  readonly switch?: true;
}

const ROOT = projectRoot();
const TABLE = settingsModule.SETTINGS as unknown as Readonly<Record<string, TableRow>>;
const COMMANDS_DIR = join(ROOT, 'src', 'cli', 'commands');

async function commands(): Promise<Command[]> {
  const files = readdirSync(COMMANDS_DIR).filter((f) => f.endsWith('.ts'));
  return Promise.all(
    files.map(async (f) => ((await import(join(COMMANDS_DIR, f))) as { command: Command }).command),
  );
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** Every name a flag could have: words in quotes anywhere in src/cli and src/config, and --words of a help. */
function candidateFlags(helps: readonly string[]): Set<string> {
  const names = new Set<string>();
  const texts = [...sources(join(ROOT, 'src', 'cli')), ...sources(join(ROOT, 'src', 'config'))].map((f) =>
    readFileSync(f, 'utf8'),
  );
  for (const text of texts)
    for (const m of text.matchAll(/['"`]-{0,2}([a-z][a-z0-9]*(?:-[a-z0-9]+)*)['"`]/g)) names.add(m[1]!);
  for (const help of helps) for (const m of help.matchAll(/--([a-z][a-z0-9-]*)/g)) names.add(m[1]!);
  names.delete('help');
  return names;
}

/** The flags `command` accepts: those its parser does not call unknown. */
function acceptedFlags(command: Command, candidates: ReadonlySet<string>): string[] {
  return [...candidates].filter((name) => {
    try {
      parseCommandArgs(command, [`--${name}`]);
      return true;
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return !error.message.includes('unknown flag');
    }
  });
}

describe('the settings table', () => {
  it('holds every flag any command accepts, each taken as one setting of the table', async () => {
    const all = await commands();
    expect(all.length).toBeGreaterThanOrEqual(15);
    const candidates = candidateFlags(all.map(commandHelp));
    const byFlag = new Map<string, string[]>();
    for (const [name, row] of Object.entries(TABLE))
      if (row.flag) byFlag.set(row.flag, [...(byFlag.get(row.flag) ?? []), name]);
    const outside: string[] = [];
    for (const command of all) {
      const accepted = acceptedFlags(command, candidates);
      expect(accepted.length, command.name).toBeGreaterThan(0);
      const taken: readonly string[] = command.settings;
      expect(new Set(taken).size, `${command.name} lists a setting twice`).toBe(taken.length);
      for (const flag of accepted) {
        // The command takes it as a setting of the table, and one setting only.
        const settings = (byFlag.get(flag) ?? []).filter((name) => taken.includes(name));
        if (settings.length !== 1) outside.push(`${command.name} --${flag}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('lists each setting once and gives each a command that takes it', async () => {
    const parts = settingsModule.SETTING_PARTS;
    const names = parts.flatMap((part) => Object.keys(part));
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBe(Object.keys(TABLE).length);
    const taken = new Set((await commands()).flatMap((c) => c.settings));
    expect(Object.keys(TABLE).filter((name) => !taken.has(name as never))).toEqual([]);
  });

  it('names each environment variable once, TSYNC_* (REDIS_URL as the ecosystem spells it)', () => {
    const envs = Object.values(TABLE).flatMap((row) => (row.env ? [row.env] : []));
    expect(new Set(envs).size).toBe(envs.length);
    expect(envs.filter((env) => env !== 'REDIS_URL' && !/^TSYNC_[A-Z_]+$/.test(env))).toEqual([]);
    // A flag with a variable configures the process: one setting per such flag in all the program.
    const flags = Object.values(TABLE).flatMap((row) => (row.env && row.flag ? [row.flag] : []));
    expect(new Set(flags).size).toBe(flags.length);
  });
});

describe('config show', () => {
  it("lists every flag of the worker with its environment variable, the worker's own and the report's included", async () => {
    const worker = (await commands()).find((c) => c.name === 'worker');
    if (!worker) throw new Error('no worker command');
    const flags = acceptedFlags(worker, candidateFlags([commandHelp(worker)]));
    expect(flags).toEqual(expect.arrayContaining(['every', 'metrics-port', 'job-lock', 'report-dir']));
    const result = await runMain(['config', 'show', '--json'], {});
    expect(result.code, result.stderr).toBe(0);
    const rows = JSON.parse(result.stdout) as { flag: string | null; env: string | null; source: string }[];
    const missing = flags.filter((flag) => !rows.some((row) => row.flag === `--${flag}` && row.env !== null));
    expect(missing).toEqual([]);
  });

  it("shows a worker setting from its environment variable, and the report folder derived from the file's", async () => {
    const env = { TSYNC_EVERY: '10m', TSYNC_DB: '/srv/mirror/t.duckdb', TSYNC_METRICS_PORT: 'x' };
    const result = await runMain(['config', 'show', '--json'], env);
    const rows = Object.fromEntries(
      (JSON.parse(result.stdout) as { setting: string }[]).map((row) => [row.setting, row]),
    );
    expect(rows['every']).toMatchObject({ env: 'TSYNC_EVERY', source: 'env', value: '10m', problem: null });
    expect(rows['job_lock']).toMatchObject({ flag: '--job-lock', source: 'default', value: '30s' });
    expect(rows['report_dir']).toMatchObject({
      source: 'derived',
      value: '/srv/mirror/reports (from TSYNC_DB /srv/mirror/t.duckdb)',
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'transcript-sync: TSYNC_METRICS_PORT: is not a port (0-65535; 0 picks a free one) (got "x")\n',
    );
  });

  it('refuses a job lock too short to be renewed, as the worker does', async () => {
    const result = await runMain(['config', 'show', '--json'], { TSYNC_JOB_LOCK: '1ms' });
    const rows = Object.fromEntries(
      (JSON.parse(result.stdout) as { setting: string }[]).map((row) => [row.setting, row]),
    );
    expect(rows['job_lock']).toMatchObject({ source: 'env', value: '1ms' });
    expect(rows['job_lock']).not.toMatchObject({ problem: null });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'transcript-sync: TSYNC_JOB_LOCK: must be a duration of 2s or more (got "1ms")\n',
    );
  });

  it('names each setting in snake_case, as the keys of every JSON the program prints', async () => {
    const result = await runMain(['config', 'show', '--json'], {});
    const rows = JSON.parse(result.stdout) as { setting: string; flag: string | null }[];
    expect(rows.map((row) => row.setting)).toEqual(expect.arrayContaining(['api_key', 'page_bytes']));
    expect(rows.filter((row) => !/^[a-z]+(_[a-z]+)*$/.test(row.setting))).toEqual([]);
    // The flag's own words: what a person types, what a program reads.
    expect(rows.filter((row) => row.flag && row.flag !== `--${row.setting.replaceAll('_', '-')}`)).toEqual(
      [],
    );
  });
});

describe('the worker', () => {
  const env = {
    TSYNC_API_KEY: 'k',
    TSYNC_BASE_URL: 'http://127.0.0.1:9',
    REDIS_URL: 'redis://127.0.0.1:9',
    TSYNC_DB: '/srv/mirror/t.duckdb',
  };

  it('is configured by its environment alone, a flag winning over its variable', async () => {
    const { resolveWorkerOptions } = await import('../../../src/cli/commands/worker.js');
    const sink = new PassThrough();
    const container = {
      ...env,
      TSYNC_EVERY: '10m',
      TSYNC_FULL_EVERY: '0 3 * * 0',
      TSYNC_METRICS_HOST: '0.0.0.0',
      TSYNC_METRICS_PORT: '0',
      TSYNC_JOB_LOCK: '2s',
      TSYNC_SHUTDOWN_TIMEOUT: '20s',
      TSYNC_RECENT_WINDOW: '6h',
      TSYNC_REPORT_WINDOW: '10d',
      TSYNC_REPORT_BOM: 'true',
      TSYNC_KIND: 'live',
    };
    const { options, shutdownTimeoutMs } = resolveWorkerOptions({ every: '1h' }, container, sink);
    expect(options).toMatchObject({
      kinds: ['live'],
      every: { every: 3_600_000 },
      fullEvery: { pattern: '0 3 * * 0' },
      metricsHost: '0.0.0.0',
      metricsPort: 0,
      jobLockMs: 2_000,
    });
    expect(shutdownTimeoutMs).toBe(20_000);
    expect(options.settings).toMatchObject({
      reconcileWindow: 6 * 3_600_000,
      reportDir: '/srv/mirror/reports',
      reportFiles: { windowMs: 10 * 86_400_000, bom: true, kind: 'live' },
    });
  });

  it("refuses a bad value in the environment naming the variable, before the run's settings", async () => {
    const { resolveWorkerOptions } = await import('../../../src/cli/commands/worker.js');
    const run = (extra: Record<string, string>) => () =>
      resolveWorkerOptions({}, { ...env, TSYNC_API_KEY: '', ...extra }, new PassThrough());
    expect(run({ TSYNC_JOB_LOCK: '5' })).toThrow(/^TSYNC_JOB_LOCK: "5" has no unit/);
    expect(run({ TSYNC_REPORT_BOM: 'maybe' })).toThrow(/^TSYNC_REPORT_BOM: must be true or false/);
    expect(run({})).toThrow(/^TSYNC_API_KEY: is required/);
  });
});

describe("docs/configuration.md's table of variables", () => {
  it('has a row for every setting with an environment variable, with its flag and default', () => {
    const page = readFileSync(join(ROOT, 'docs', 'configuration.md'), 'utf8');
    const rows = new Map(
      [...page.matchAll(/^\| `([A-Z_]+)` \| ([^|]+) \| ([^|]+) \|/gm)].map((m) => [m[1]!, m]),
    );
    const wrong: string[] = [];
    for (const [name, setting] of Object.entries(TABLE)) {
      if (!setting.env) continue;
      const row = rows.get(setting.env);
      const flag = setting.flag ? `\`--${setting.flag}\`` : '(none)';
      const def = setting.default === undefined || setting.switch ? undefined : `\`${setting.default}\``;
      if (!row || row[2]?.trim() !== flag || (def !== undefined && !row[3]?.includes(def)))
        wrong.push(`${name}: ${setting.env} ${flag} ${def ?? ''}`);
    }
    expect(wrong).toEqual([]);
  });
});
