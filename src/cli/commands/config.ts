/**
 * `transcript-sync config show`: every shared setting (src/config.ts) with the value in effect,
 * secrets masked, and where it came from (flag, env, default, derived, unset). Flags given here
 * override the environment exactly as they would for any other command. A setting that would be
 * refused makes the exit code 2, with one line on stderr per such setting.
 */
import { describeSettings, SETTINGS, type SettingName, type SettingRow } from '../../config/settings.js';
import { ConfigError } from '../../errors.js';
import { defaultSliceJobs } from '../../extract/walk/slices.js';
import { planMemory } from '../../memory/budget.js';
import { formatBytes, parseBytes } from '../../util/bytes.js';
import { type Command, flag, PROGRAM } from '../command.js';
import { writeRows } from '../table.js';

/** Every setting that has a flag: `config show --memory 1GB` shows what a sync would run with. */
const FLAGGED = (Object.keys(SETTINGS) as SettingName[]).filter((name) => 'flag' in SETTINGS[name]);

export const command: Command = {
  name: 'config',
  summary: 'show each setting, its value (secrets masked) and where it came from',
  usage: 'config show [--json] [--SETTING VALUE ...]',
  description: [
    'Lists every setting: its flag and environment variable, the value in effect (the API key is only',
    'reported as set; a password in a URL is masked) and its source: flag, env, default, derived or',
    'unset. Derived: a setting left unset takes a value from others (--page-bytes from --memory and',
    '--concurrency, --slice-jobs from --page-size); it is shown with what it comes from. A value that',
    'would be refused is shown with the reason, repeated on stderr, and the exit code is 2. Worker-only',
    'flags (--every, ...) are listed by `transcript-sync worker --help` with their defaults.',
  ].join('\n'),
  positionals: true,
  options: { json: { type: 'boolean', help: 'print JSON on stdout' } },
  settings: FLAGGED,
  async run({ flags, env, positionals, stdout, stderr }) {
    const [action, extra] = positionals;
    if (action !== 'show' || extra !== undefined) {
      const got = action === undefined ? 'no action' : `"${[action, extra].filter(Boolean).join(' ')}"`;
      throw new ConfigError('config', `expected \`show\`, got ${got}; see \`${PROGRAM} config --help\``);
    }
    const rows = withDerived(describeSettings(flags, env));
    writeRows(stdout, flag(flags, 'json'), rows, (r) => ({
      setting: [r.flag, r.env].filter(Boolean).join(' / '),
      value: r.value ?? '',
      source: r.source,
      problem: r.problem ?? '',
    }));
    const refused = rows.filter((r) => r.problem !== null);
    for (const r of refused) {
      const where = r.source === 'flag' ? r.flag : r.env;
      // As a sync would refuse it; the key's value is never echoed.
      const got = r.setting === 'apiKey' ? '' : ` (got "${r.value}")`;
      stderr.write(`${PROGRAM}: ${where}: ${r.problem}${got}\n`);
    }
    return refused.length > 0 ? 2 : 0;
  },
};

/**
 * The rows with --page-bytes and --slice-jobs, when unset, as a sync derives them; left unset when
 * a setting they derive from would be refused (its own row says why).
 */
function withDerived(rows: readonly SettingRow[]): SettingRow[] {
  const row = (name: SettingName) => rows.find((r) => r.setting === name);
  const valid = (name: SettingName) => {
    const r = row(name);
    return r && r.value !== null && r.problem === null ? r.value : undefined;
  };
  const memory = valid('memory');
  const concurrency = valid('concurrency');
  const pageSize = valid('pageSize');
  const derived: Partial<Record<SettingName, string>> = {};
  if (memory !== undefined && concurrency !== undefined) {
    const { pageBytes } = planMemory(parseBytes(memory) ?? 0, Number(concurrency));
    derived.pageBytes = `${formatBytes(pageBytes)} (from --memory ${memory}, --concurrency ${concurrency})`;
  }
  if (pageSize !== undefined) {
    derived.sliceJobs = `${defaultSliceJobs(Number(pageSize))} (from --page-size ${pageSize})`;
  }
  return rows.map((r) => {
    const value = derived[r.setting];
    return r.source === 'unset' && value !== undefined ? { ...r, value, source: 'derived' } : r;
  });
}
