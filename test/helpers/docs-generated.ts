/**
 * The parts of docs/ written by the code, not by hand: the settings tables of docs/configuration.md,
 * made from the one settings table (src/config/settings.ts) and each command's list of settings, and
 * the memory plan, made by planMemory itself. A page holds each between `<!-- NAME -->` and
 * `<!-- /NAME -->`; test/unit/repo/docs-generated.test.ts fails when a page drifts from what this
 * makes, and rewrites the page with UPDATE_DOCS=1.
 */
import type { Command } from '../../src/cli/command.js';
import { loadCommands } from '../../src/cli/program.js';
import { DERIVED } from '../../src/config/resolve.js';
import { CONFIGURATION, type SettingName, settingOf } from '../../src/config/settings.js';
import { planMemory } from '../../src/memory/budget.js';
import { planReaderMemory } from '../../src/memory/reader-memory.js';
import { formatBytes } from '../../src/util/bytes.js';

/** A cell: bars escaped so a help text cannot split a row. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

function code(text: string): string {
  return `\`${text}\``;
}

/** The default as the table writes it: the text, `off` for a switch, what a derived one follows. */
function defaultOf(name: SettingName): string {
  const setting = settingOf(name);
  if (setting.switch) return 'off';
  if (setting.default !== undefined) return code(setting.default);
  const derivation = DERIVED[name];
  if (derivation) {
    const from = derivation.from.map((n) => {
      const s = settingOf(n);
      return code(s.flag ? `--${s.flag}` : (s.env ?? n));
    });
    return `from ${from.join(' and ')}`;
  }
  return 'none';
}

function flagOf(name: SettingName): string {
  const flag = settingOf(name).flag;
  return flag === undefined ? '(none)' : code(`--${flag}`);
}

/** Every setting with an environment variable: what configures a process, with its commands. */
function environmentTable(commands: readonly Command[]): string {
  const rows = CONFIGURATION.map((name) => {
    const setting = settingOf(name);
    const takers = commands.filter((c) => c.settings.includes(name)).map((c) => c.name);
    return `| ${code(setting.env ?? '')} | ${flagOf(name)} | ${defaultOf(name)} | ${cell(setting.help)} | ${takers.join(', ')} |`;
  });
  return ['| variable | flag | default | meaning | commands |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** One command's flags, in the order of its --help. */
function commandTable(command: Command): string {
  const rows = command.settings
    .filter((name) => settingOf(name).flag !== undefined)
    .map((name) => {
      const setting = settingOf(name);
      const usage = `${setting.short ? `-${setting.short}, ` : ''}--${setting.flag}${setting.switch ? '' : ` ${setting.value ?? 'VALUE'}`}`;
      const env = setting.env ? code(setting.env) : '';
      return `| ${code(usage)} | ${env} | ${defaultOf(name)} | ${cell(setting.help)} |`;
    });
  return [
    `\`transcript-sync ${command.usage}\``,
    '',
    '| flag | variable | default | meaning |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}

const MiB = 2 ** 20;
/**
 * Budgets whose DuckDB share gives one thread on any machine (threads are also capped by the
 * cores), so the block reads the same wherever the test runs.
 */
const BUDGETS: readonly [string, number][] = [
  ['256MB', 256e6],
  ['512MB (default)', 512e6],
];

/** The memory plan at a few budgets, with the default concurrency (2), as planMemory makes it. */
function memoryPlanTable(): string {
  const concurrency = Number(settingOf('concurrency').default);
  const plans = BUDGETS.map(([, bytes]) => planMemory(bytes, concurrency));
  const mib = (bytes: number) => formatBytes(bytes);
  const line = (what: string, value: (plan: (typeof plans)[number]) => string) =>
    `| ${what} | ${plans.map(value).join(' | ')} |`;
  return [
    `| derived from \`--memory\` (\`--concurrency ${concurrency}\`) | ${BUDGETS.map(([label]) => label).join(' | ')} |`,
    `|---|${BUDGETS.map(() => '---|').join('')}`,
    line('page bytes (`--page-bytes` when unset)', (p) => mib(p.pageBytes)),
    line('JSON bytes queued for the writer', (p) => mib(p.queueBytes)),
    line('bytes the writer loads in one go', (p) => mib(p.batchBytes)),
    line('child rows per commit', (p) => p.commitRows.toLocaleString('en-US')),
    line('JSON bytes per commit', (p) => mib(p.commitBytes)),
    line('V8 heap mark (a full collection past it)', (p) => mib(p.heapBytes)),
    line('DuckDB `memory_limit` (all it may hold)', (p) => mib(p.duckdb.memoryLimit)),
    line('DuckDB `wal_autocheckpoint` (small commits)', (p) => mib(p.duckdb.walAutocheckpoint)),
    line('DuckDB `threads`', (p) => String(p.duckdb.threads)),
    line('items on the first page (a record assumed 1 MiB)', (p) =>
      String(Math.max(1, Math.floor(p.pageBytes / MiB))),
    ),
    `| reading commands: DuckDB \`memory_limit\` | ${BUDGETS.map(([, bytes]) => mib(planReaderMemory(bytes, '/f').memoryLimit)).join(' | ')} |`,
    `| \`export\`, \`--publish\`: DuckDB \`memory_limit\` | ${BUDGETS.map(([, bytes]) => mib(planReaderMemory(bytes, '/f', { writesParquet: true }).memoryLimit)).join(' | ')} |`,
  ].join('\n');
}

/** Every generated block of docs/, by marker name. */
export async function generatedBlocks(): Promise<Map<string, string>> {
  const commands = await loadCommands();
  const blocks = new Map<string, string>();
  blocks.set('settings:environment', environmentTable(commands));
  for (const command of commands) blocks.set(`settings:${command.name}`, commandTable(command));
  blocks.set('memory-plan', memoryPlanTable());
  return blocks;
}

/** The marker names of `text`'s generated blocks, in page order. */
export function blockNames(text: string): string[] {
  return [...text.matchAll(/^<!-- (?!\/)([\w:-]+) -->$/gm)]
    .map((m) => m[1] as string)
    .filter((name) => text.includes(`<!-- /${name} -->`));
}

/** `text` with each block named in `blocks` replaced by its generated content. */
export function fillBlocks(text: string, blocks: ReadonlyMap<string, string>): string {
  let out = text;
  for (const name of blockNames(text)) {
    const content = blocks.get(name);
    if (content === undefined) throw new Error(`no generated block is named ${name}`);
    const open = `<!-- ${name} -->`;
    const close = `<!-- /${name} -->`;
    const start = out.indexOf(open) + open.length;
    const end = out.indexOf(close);
    out = `${out.slice(0, start)}\n${content}\n${out.slice(end)}`;
  }
  return out;
}
