/** `transcript-sync config show`: every setting of the configuration, its value and its source. */
import { describeSettings, settingKey } from '../../config/describe.js';
import { resolveFormat } from '../../config/resolve.js';
import { CONFIGURATION } from '../../config/settings.js';
import { type Command, noAction, PROGRAM } from '../command.js';
import { writeRows } from '../table.js';

export const command: Command = {
  name: 'config',
  usage: 'config show [--format table|json | --json] [--SETTING VALUE ...]',
  description: [
    'Lists every setting that has an environment variable (those of sync, worker and the other',
    'commands alike): its flag and variable, the value in effect (the API key is only reported as',
    'set; a password in a URL is masked) and its source: flag, env, default, derived or unset.',
    'Derived: a setting left unset takes a value from others (--page-bytes from --memory and',
    '--concurrency, --slice-jobs from --page-size, --report-dir from --db); it is shown with what it',
    'comes from. A value that would be refused is shown with the reason, repeated on stderr, and the',
    'exit code is 2. Flags that only ask something of one command line (--format, --full, --yes, ...)',
    "are in each command's --help.",
  ].join('\n'),
  positionals: true,
  // `config show --memory 1GB` shows what a sync would run with.
  settings: ['format', 'json', ...CONFIGURATION],
  async run({ flags, env, positionals, stdout, stderr }) {
    const [action, extra] = positionals;
    if (action !== 'show' || extra !== undefined)
      throw noAction('config', '`show`', action && [action, extra].filter(Boolean).join(' '));
    const json = resolveFormat('format', flags, env) === 'json';
    const rows = describeSettings(flags, env);
    const shown = rows.map((r) => ({ ...r, setting: settingKey(r.setting) }));
    writeRows(stdout, json, shown, (r) => ({
      setting: [r.flag, r.env].filter(Boolean).join(' / '),
      value: r.value ?? '',
      source: r.source,
      problem: r.problem ?? '',
    }));
    const refused = rows.filter((r) => r.problem !== null);
    for (const r of refused) {
      const where = r.source === 'flag' ? r.flag : r.env;
      // As a sync would refuse it (the problem quotes the value, never a secret's).
      stderr.write(`${PROGRAM}: ${where}: ${r.problem}\n`);
    }
    return refused.length > 0 ? 2 : 0;
  },
};
