/**
 * The `transcript-sync` program: finds the subcommand, parses its flags, runs it, and turns errors
 * into one line on stderr and an exit code (2: usage or configuration, 1: runtime failure).
 */
import { retiredWarnings } from '../config/retired.js';
import { TsyncError } from '../errors.js';
import { type Command, type CommandIo, commandHelp, PROGRAM, parseCommandArgs } from './command.js';

interface Entry {
  readonly summary: string;
  readonly load: () => Promise<Command>;
}

/** Commands load lazily so that `--help` and small commands stay quick. */
const COMMANDS: Readonly<Record<string, Entry>> = {
  demo: {
    summary: 'sync a local simulator into ./data/demo.duckdb and show the result',
    load: async () => (await import('./commands/demo.js')).command,
  },
  sync: {
    summary: 'bring the DuckDB file up to date with the service (one run)',
    load: async () => (await import('./commands/sync.js')).command,
  },
  status: {
    summary: 'per kind: watermark, pending jobs, last run, row counts',
    load: async () => (await import('./commands/status.js')).command,
  },
  simulate: {
    summary: 'serve a local simulator of the listing service',
    load: async () => (await import('./commands/simulate.js')).command,
  },
  worker: {
    summary: 'run scheduled syncs from a BullMQ queue (needs REDIS_URL)',
    load: async () => (await import('./commands/worker.js')).command,
  },
  enqueue: {
    summary: 'queue a sync run now for the worker (needs REDIS_URL)',
    load: async () => (await import('./commands/enqueue.js')).command,
  },
  report: {
    summary: 'billing, status, latency and errors reports (table, CSV, JSON, HTML)',
    load: async () => (await import('./commands/report.js')).command,
  },
  query: {
    summary: 'run read-only SQL against the DuckDB file',
    load: async () => (await import('./commands/query.js')).command,
  },
  export: {
    summary: 'write Parquet files partitioned by kind and month',
    load: async () => (await import('./commands/export.js')).command,
  },
  runs: {
    summary: 'the history of sync runs (sync_runs), newest first',
    load: async () => (await import('./commands/runs.js')).command,
  },
  state: {
    summary: "show a kind's checkpoint, or reset it to re-sync (from a date)",
    load: async () => (await import('./commands/state.js')).command,
  },
  config: {
    summary: 'show each setting, its value (secrets masked) and where it came from',
    load: async () => (await import('./commands/config.js')).command,
  },
  quarantine: {
    summary: 'list records that failed validation, or retry loading them',
    load: async () => (await import('./commands/quarantine.js')).command,
  },
  erase: {
    summary: "erase jobs' content on request (a data-subject request), keeping their billing facts",
    load: async () => (await import('./commands/erase.js')).command,
  },
  compact: {
    summary: 'rewrite the DuckDB file in the current storage format (smaller)',
    load: async () => (await import('./commands/compact.js')).command,
  },
  verify: {
    summary: "check every table's invariants (unique ids, no orphans); exit 1 if one breaks",
    load: async () => (await import('./commands/verify.js')).command,
  },
};

/** Every command, in the order of the program's --help (docs/configuration.md lists them so). */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(Object.values(COMMANDS).map((entry) => entry.load()));
}

function programHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    "Mirror a speech-transcription service's job listings into DuckDB.",
    '',
    'Commands:',
    ...Object.entries(COMMANDS).map(([name, entry]) => `  ${name.padEnd(width)}  ${entry.summary}`),
    '',
    `Run \`${PROGRAM} <command> --help\` (or \`${PROGRAM} help <command>\`) for a command's options;`,
    `\`${PROGRAM} --version\` (-V) prints the version.`,
    '',
  ].join('\n');
}

/**
 * Runs one command line with the given streams and env and returns its exit code; it never exits
 * the process (src/cli/main.ts does), so tests call it in-process.
 */
export async function main(argv: readonly string[], io: CommandIo): Promise<number> {
  const { stdout, stderr } = io;
  const [name, ...rest] = argv;
  if (name === undefined) {
    stderr.write(programHelp());
    return 2;
  }
  if (name === '--help' || name === '-h') {
    stdout.write(programHelp());
    return 0;
  }
  // `help sync` is `sync --help`; `help` alone, the program's.
  if (name === 'help') return rest.length === 0 ? main(['--help'], io) : main([...rest, '--help'], io);
  if (name === '--version' || name === '-v' || name === '-V') {
    // From the project root, not a path relative to this file: src/ (in-process) and dist/src/ differ.
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { projectRoot } = await import('../util/paths.js');
    const pkg = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
    stdout.write(`${pkg.version}\n`);
    return 0;
  }
  const entry = COMMANDS[name];
  if (!entry) {
    stderr.write(`${PROGRAM}: unknown command "${name}"; run \`${PROGRAM} --help\` for the list\n`);
    return 2;
  }
  let command: Command | undefined;
  try {
    command = await entry.load();
    const { flags, positionals } = parseCommandArgs(command, rest);
    if (flags['help'] === true) {
      stdout.write(commandHelp(command));
      return 0;
    }
    await warnRetired(command, io);
    return await command.run({ ...io, flags, positionals });
  } catch (error) {
    return await reportError(error, stderr, command?.logs === true);
  }
}

/** A warning per retired setting the environment still sets; like reportError's line in format. */
async function warnRetired(command: Command, { env, stderr }: CommandIo): Promise<void> {
  const warnings = retiredWarnings(command.name, env);
  if (warnings.length === 0) return;
  const { outcomeWriter } = await import('../log.js');
  const say = command.logs === true ? outcomeWriter(stderr) : undefined;
  for (const text of warnings) {
    if (say) say('warn', `${PROGRAM}: ${text}`);
    else stderr.write(`${PROGRAM}: ${text}\n`);
  }
}

/**
 * The one line of a failure and its exit code. A command that logs (`logs`) writes it off a
 * terminal as a log line (`msg` the same text), like the rest of its stderr; others write the text.
 */
async function reportError(
  error: unknown,
  stderr: NodeJS.WritableStream & { readonly isTTY?: boolean },
  logs = false,
): Promise<number> {
  const known = error instanceof TsyncError ? error : undefined;
  const exitCode = known ? known.exitCode : 1;
  const line = known
    ? known.toLine()
    : `unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
  const text = `${PROGRAM}: ${line}`;
  if (logs && stderr.isTTY !== true) {
    const fields = known ? { code: known.code, exit_code: exitCode } : { exit_code: exitCode };
    const { outcomeWriter } = await import('../log.js');
    outcomeWriter(stderr)('error', text, fields);
  } else stderr.write(`${text}\n`);
  return exitCode;
}
