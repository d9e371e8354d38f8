/** The program's own words: `help COMMAND` is that command's help, and -V its version. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../../src/util/paths.js';
import { runMain } from '../../helpers/cli.js';

describe('help and version', () => {
  it("`help sync` prints sync's help, as `sync --help` does", async () => {
    const help = await runMain(['help', 'sync']);
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toBe((await runMain(['sync', '--help'])).stdout);
    expect(help.stdout).toMatch(/^Usage: transcript-sync sync /);
  });

  it('`help` alone prints the list of commands; `help` of no command is refused', async () => {
    const all = await runMain(['help']);
    expect(all.code).toBe(0);
    expect(all.stdout).toBe((await runMain(['--help'])).stdout);
    const unknown = await runMain(['help', 'synk']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "synk"');
  });

  it('a name every object has (toString, constructor) is an unknown command or flag, not a crash', async () => {
    for (const name of ['toString', 'constructor', '__proto__']) {
      const result = await runMain([name]);
      expect(result.code, name).toBe(2);
      expect(result.stderr, name).toBe(
        `transcript-sync: unknown command "${name}"; run \`transcript-sync --help\` for the list\n`,
      );
    }
    const flag = await runMain(['status', '--constructor']);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('unknown flag --constructor; see `transcript-sync status --help`');
  });

  it('-V and --version print the version', async () => {
    const { version } = JSON.parse(readFileSync(join(projectRoot(), 'package.json'), 'utf8')) as {
      version: string;
    };
    for (const flag of ['-V', '--version']) {
      const result = await runMain([flag]);
      expect(result.code, flag).toBe(0);
      expect(result.stdout, flag).toBe(`${version}\n`);
    }
  });
});
