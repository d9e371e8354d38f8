/**
 * The `transcript-sync` program: finds the subcommand, parses its flags, runs it, and turns errors
 * into one line on stderr and an exit code (2: usage or configuration, 1: runtime failure).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { retiredWarnings } from '../config/retired.js';
import { TsyncError } from '../errors.js';
import type { OutcomeWriter } from '../log.js';
import { projectRoot } from '../util/paths.js';
import {
  type Command,
  type CommandIo,
  commandHelp,
  PROGRAM,
  parseCommandArgs,
  SUMMARIES,
} from './command.js';

/** Each command's module, loaded lazily so that `--help` and small commands stay quick. */
const LOADERS = {
  demo: () => import('./commands/demo.js'),
  sync: () => import('./commands/sync.js'),
  status: () => import('./commands/status.js'),
  simulate: () => import('./commands/simulate.js'),
  worker: () => import('./commands/worker.js'),
  enqueue: () => import('./commands/enqueue.js'),
  report: () => import('./commands/report.js'),
  query: () => import('./commands/query.js'),
  export: () => import('./commands/export.js'),
  runs: () => import('./commands/runs.js'),
  state: () => import('./commands/state.js'),
  config: () => import('./commands/config.js'),
  quarantine: () => import('./commands/quarantine.js'),
  erase: () => import('./commands/erase.js'),
  compact: () => import('./commands/compact.js'),
  verify: () => import('./commands/verify.js'),
} satisfies Record<keyof typeof SUMMARIES, () => Promise<{ readonly command: Command }>>;

/** Every command, in the order of the program's --help. */
export function loadCommands(): Promise<Command[]> {
  return Promise.all(Object.values(LOADERS).map(async (load) => (await load()).command));
}

function programHelp(): string {
  const width = Math.max(...Object.keys(SUMMARIES).map((n) => n.length));
  return [
    `Usage: ${PROGRAM} <command> [options]`,
    '',
    "Mirror a speech-transcription service's job listings into DuckDB.",
    '',
    'Commands:',
    ...Object.entries(SUMMARIES).map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    `Run \`${PROGRAM} <command> --help\` (or \`${PROGRAM} help <command>\`) for a command's options;`,
    `\`${PROGRAM} --version\` (-V) prints the version.`,
    '',
  ].join('\n');
}

/** Runs one command line and returns its exit code; never exits the process, so tests call it in-process. */
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
  if (name === 'help') return rest.length === 0 ? main(['--help'], io) : main([...rest, '--help'], io);
  if (name === '--version' || name === '-v' || name === '-V') {
    // From the project root, not a path relative to this file: src/ (in-process) and dist/src/ differ.
    const pkg = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as { version: string };
    stdout.write(`${pkg.version}\n`);
    return 0;
  }
  // Own names only: `toString` or `constructor` is no command.
  const load = Object.hasOwn(LOADERS, name) ? LOADERS[name as keyof typeof LOADERS] : undefined;
  if (!load) {
    stderr.write(`${PROGRAM}: unknown command "${name}"; run \`${PROGRAM} --help\` for the list\n`);
    return 2;
  }
  let command: Command | undefined;
  try {
    command = (await load()).command;
    const { flags, positionals } = parseCommandArgs(command, rest);
    if (flags['help'] === true) {
      stdout.write(commandHelp(command));
      return 0;
    }
    await warnRetired(command, io);
    return await command.run({ ...io, flags, positionals });
  } catch (error) {
    return await reportError(error, stderr, command?.logs);
  }
}

/** A warning per retired setting the environment still sets, written as reportError's line is. */
async function warnRetired(command: Command, { env, stderr }: CommandIo): Promise<void> {
  const warnings = retiredWarnings(command.name, env);
  if (warnings.length === 0) return;
  const say = await lineWriter(stderr, command.logs);
  for (const text of warnings) say('warn', `${PROGRAM}: ${text}`);
}

/** The one line of a failure, and its exit code. */
async function reportError(error: unknown, stderr: CommandIo['stderr'], logs?: boolean): Promise<number> {
  const known = error instanceof TsyncError ? error : undefined;
  const exitCode = known ? known.exitCode : 1;
  const line = known
    ? known.toLine()
    : `unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
  const fields = known ? { code: known.code, exit_code: exitCode } : { exit_code: exitCode };
  (await lineWriter(stderr, logs))('error', `${PROGRAM}: ${line}`, fields);
  return exitCode;
}

/** The program's own lines: off a terminal a log line if the command `logs`, else the text alone. */
async function lineWriter(stderr: CommandIo['stderr'], logs?: boolean): Promise<OutcomeWriter> {
  if (logs !== true) return (_level, text) => void stderr.write(`${text}\n`);
  // Loaded only then: pino stays out of `--help` and the small commands.
  const { outcomeWriter } = await import('../log.js');
  return outcomeWriter(stderr);
}
