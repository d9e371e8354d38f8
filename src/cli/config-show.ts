/**
 * `transcript-sync config show`: every shared setting (src/config.ts) with the value in effect,
 * secrets masked, and where it came from (flag, env, default, unset). Flags given here override
 * the environment exactly as they would for any other command.
 */
import { describeSettings } from '../config.js';
import { ConfigError } from '../errors.js';
import { type Command, flag, PROGRAM } from './command.js';
import { writeRows } from './table.js';

export const command: Command = {
  name: 'config',
  summary: 'show each setting, its value (secrets masked) and where it came from',
  usage: 'config show [--json] [--SETTING VALUE ...]',
  description: [
    'Lists every setting: its flag and environment variable, the value in effect (the API key is only',
    'reported as set; a password in a URL is masked) and its source: flag, env, default or unset.',
    'A value that would be refused is shown with the reason. Worker-only flags (--every, ...) are',
    'listed by `transcript-sync worker --help` with their defaults.',
  ].join('\n'),
  positionals: true,
  options: { json: { type: 'boolean', help: 'print JSON on stdout' } },
  settings: [
    'baseUrl',
    'db',
    'redisUrl',
    'redisPrefix',
    'logLevel',
    'rateLimit',
    'pageSize',
    'concurrency',
    'lookback',
    'pendingMaxAge',
    'lockWait',
    'metadataEncoding',
  ],
  async run({ flags, env, positionals, stdout }) {
    const [action, extra] = positionals;
    if (action !== 'show' || extra !== undefined) {
      const got = action === undefined ? 'no action' : `"${[action, extra].filter(Boolean).join(' ')}"`;
      throw new ConfigError('config', `expected \`show\`, got ${got}; see \`${PROGRAM} config --help\``);
    }
    writeRows(stdout, flag(flags, 'json'), describeSettings(flags, env), (r) => ({
      setting: [r.flag, r.env].filter(Boolean).join(' / '),
      value: r.value ?? '',
      source: r.source,
      problem: r.problem ?? '',
    }));
    return 0;
  },
};
