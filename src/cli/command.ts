/**
 * What a subcommand is: the settings it takes as flags (each a setting of src/config's table, which
 * gives its type, help and validation), its help, and what it runs. Flags are parsed with node's
 * `util.parseArgs`; a usage error is one line of our own, a ConfigError (exit 2) pointing at --help.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { flagUsage, settingHelp } from '../config/describe.js';
import { retiredFlag } from '../config/retired.js';
import { type Env, type FlagValues, type SettingName, settingOf } from '../config/settings.js';
import { ConfigError } from '../errors.js';
import type { JobRegistry } from '../worker/job-definition.js';

type FlagSpecs = NonNullable<ParseArgsConfig['options']>;

/**
 * What a command reads and writes in place of the process's own: src/cli/main.ts binds them to the
 * process; a test passes buffers and an env of its own, so many commands can run in one process.
 */
export interface CommandIo {
  readonly stdout: NodeJS.WritableStream;
  /** Logs and progress; a terminal (isTTY) gets readable lines, anything else JSON lines. */
  readonly stderr: NodeJS.WritableStream & { readonly isTTY?: boolean };
  /** Where settings are read from (src/config); never process.env inside a command. */
  readonly env: Env;
  /** `query -` reads SQL from it; unset, it is empty. */
  readonly stdin?: AsyncIterable<string | Buffer>;
  /** Ends the process at once (a second Ctrl-C); only main.ts binds it, in-process callers get the code. */
  readonly exit?: (code: number) => void;
  /** The worker's jobs (jobs/index.ts's JOBS): jobs/ builds on src/, so the bin hands them in. */
  readonly jobs?: () => Promise<JobRegistry>;
}

export interface CommandContext extends CommandIo {
  readonly flags: FlagValues;
  readonly positionals: readonly string[];
}

/**
 * Every command's name and its line in the program's --help, in that order (docs/configuration.md
 * lists them so). Kept here, apart from the commands' modules, so that `--help` loads none of them.
 */
export const SUMMARIES = {
  demo: 'sync a local simulator of the service into ./data/demo.duckdb and show the result',
  sync: 'bring the DuckDB file up to date with the service (one run)',
  status: 'show per kind the watermark, pending jobs, last run and row counts',
  simulate: 'serve a local simulator of the listing service',
  worker: 'run scheduled syncs from a BullMQ queue (needs REDIS_URL)',
  enqueue: 'queue a sync run now for the worker (needs REDIS_URL)',
  report: 'billing, status, latency and errors reports (table, CSV, JSON, HTML)',
  query: 'run read-only SQL against the DuckDB file',
  export: 'write Parquet files partitioned by kind and month',
  runs: 'the history of sync runs (sync_runs), newest first',
  state: "show a kind's checkpoint, or reset it to re-sync (from a date)",
  config: 'show each setting, its value (secrets masked) and where it came from',
  quarantine: 'list records that failed validation, or retry loading them',
  erase: "erase jobs' content on request (a data-subject request), keeping their billing facts",
  compact: 'rewrite the DuckDB file in the current storage format (long strings compressed)',
  verify: 'check the invariants of every table (unique ids, no orphans, hashes); exit 1 if one breaks',
} as const;

export interface Command {
  readonly name: keyof typeof SUMMARIES;
  /** e.g. `sync [options]`; the program name is added. */
  readonly usage: string;
  /** Longer text printed under the usage line. */
  readonly description?: string;
  /** The settings (src/config/settings.ts) this command takes as flags, in the order of its help. */
  readonly settings: readonly SettingName[];
  /** Writes log lines on stderr (JSON off a terminal): its closing error is then a log line too. */
  readonly logs?: boolean;
  /** Whether positionals are allowed (otherwise an extra word is a usage error). */
  readonly positionals?: boolean;
  run(context: CommandContext): Promise<number>;
}

export const PROGRAM = 'transcript-sync';

/** Every flag a command accepts, by name, `--help` included: what parseCommandArgs parses. */
function commandFlags(command: Command): FlagSpecs {
  const options: FlagSpecs = { help: { type: 'boolean', short: 'h' } };
  for (const name of command.settings) {
    const setting = settingOf(name);
    if (setting.flag === undefined) continue;
    options[setting.flag] = {
      type: setting.switch ? 'boolean' : 'string',
      ...(setting.multiple ? { multiple: true } : {}),
      ...(setting.short ? { short: setting.short } : {}),
    };
  }
  return options;
}

export function parseCommandArgs(command: Command, argv: readonly string[]) {
  const options = commandFlags(command);
  const seeHelp = `see \`${PROGRAM} ${command.name} --help\``;
  const { args, texts } = setTextsAside(joinNegativeValues(argv, options), options);
  // Not strict: usageProblem names every refusal strict parsing would make, in our words.
  const parsed = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true });
  const problem = usageProblem(parsed.tokens, options, args);
  if (problem) throw new ConfigError(command.name, `${problem}; ${seeHelp}`);
  const positionals = parsed.positionals.map((arg) => texts.get(arg) ?? arg);
  if (!command.positionals && positionals.length > 0) {
    throw unexpectedArgument(command.name, positionals[0]);
  }
  return { flags: parsed.values as FlagValues, positionals };
}

type Token = NonNullable<ReturnType<typeof parseArgs>['tokens']>[number];

/** The first flag that is unknown, lacks its value or has one it does not take, in our words. */
function usageProblem(tokens: readonly Token[], options: FlagSpecs, args: readonly string[]) {
  for (const token of tokens) {
    if (token.kind !== 'option') continue;
    // Own flags only: `--constructor` is no flag.
    const spec = Object.hasOwn(options, token.name) ? options[token.name] : undefined;
    // A group of short flags (`-hx`) is named whole, as it was typed.
    const typed = token.rawName.startsWith('--') ? token.rawName : (args[token.index] ?? token.rawName);
    if (!spec) return retiredFlag(typed) ?? `unknown flag ${typed}`;
    if (spec.type === 'boolean' && token.value !== undefined) {
      return `${token.rawName} takes no value (got ${token.rawName}=${token.value})`;
    }
    if (spec.type === 'string' && token.value === undefined) return `${token.rawName} needs a value`;
    if (spec.type === 'string' && !token.inlineValue && token.value?.startsWith('-')) {
      return `${token.rawName} needs a value, not the flag ${token.value} (write ${token.rawName}=${token.value} if that is the value)`;
    }
  }
  return undefined;
}

/**
 * `--full-every -5m` would be refused by parseArgs as "ambiguous" (the value looks like a flag);
 * joined as `--full-every=-5m` it reaches the flag's own check, which names the flag and the fix.
 */
function joinNegativeValues(argv: readonly string[], options: FlagSpecs): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    const next = argv[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : undefined;
    if (name && options[name]?.type === 'string' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i += 1;
    } else out.push(arg);
  }
  return out;
}

/**
 * An argument of its own (not a flag's value, nor `--out=my file.csv`) that starts with a dash but
 * holds whitespace is text, not a flag: SQL that opens with a comment (`query "-- per kind\n..."`).
 * It is set aside behind a stand-in no flag can spell, and `texts` gives it back.
 */
function setTextsAside(argv: readonly string[], options: FlagSpecs) {
  const texts = new Map<string, string>();
  const args = argv.map((arg, i) => {
    const inline = /^--([^=\s]+)=/.exec(arg)?.[1];
    if (!/^-.*\s/s.test(arg) || takesValue(argv[i - 1], options) || (inline && inline in options)) return arg;
    const standIn = `\u0000text-${texts.size}`;
    texts.set(standIn, arg);
    return standIn;
  });
  return { args, texts };
}

/** Whether `arg` is a flag whose value is the next argument (`--format`, `-f`; not `--format=csv`). */
function takesValue(arg: string | undefined, options: FlagSpecs): boolean {
  if (arg === undefined || arg.includes('=') || !arg.startsWith('-')) return false;
  const name = arg.startsWith('--')
    ? arg.slice(2)
    : Object.entries(options).find(([, spec]) => spec.short === arg.slice(-1))?.[0];
  return name !== undefined && options[name]?.type === 'string';
}

/** The refusal of an action word (`config show`) that names none of `actions`; `got` undefined: none given. */
/** A positional argument past those `command` takes, refused with where to read which it takes. */
export function unexpectedArgument(command: Command['name'], extra: string | undefined): ConfigError {
  return new ConfigError(command, `unexpected argument "${extra}"; see \`${PROGRAM} ${command} --help\``);
}

export function noAction(command: Command['name'], actions: string, got: string | undefined): ConfigError {
  const word = got === undefined ? 'no action' : `"${got}"`;
  return new ConfigError(command, `expected ${actions}, got ${word}; see \`${PROGRAM} ${command} --help\``);
}

export function commandHelp(command: Command): string {
  const lines = [`Usage: ${PROGRAM} ${command.usage}`, '', SUMMARIES[command.name]];
  if (command.description) lines.push('', command.description);
  const rows: [string, string][] = command.settings
    .filter((name) => settingOf(name).flag !== undefined)
    .map((name) => [flagUsage(name), settingHelp(name)]);
  rows.push(['-h, --help', 'show this help']);
  const width = Math.max(...rows.map(([left]) => left.length));
  lines.push('', 'Options:', ...rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`));
  return `${lines.join('\n')}\n`;
}
