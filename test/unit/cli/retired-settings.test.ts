/**
 * A setting transcript-sync does not have, still named by a configuration: its variable is ignored
 * with a warning (the command runs on), its flag is a usage error saying why.
 */
import { describe, expect, it } from 'vitest';
import { runMain, shownLines } from '../../helpers/cli.js';

const WARNING = /TSYNC_METADATA_ENCODING is ignored: .*custom_metadata.* in SQL.*; remove it/;

describe('TSYNC_METADATA_ENCODING and --metadata-encoding', () => {
  it('config show warns that the variable is ignored, and lists no such setting', async () => {
    const result = await runMain(['config', 'show', '--json'], { TSYNC_METADATA_ENCODING: 'brackets' });
    expect(result.code).toBe(0);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(WARNING)]);
    expect(result.stdout).not.toMatch(/metadata.encoding/i);
  });

  it('sync warns with a log line, then goes on (here, to its missing key)', async () => {
    const result = await runMain(['sync'], { TSYNC_METADATA_ENCODING: 'json' });
    expect(result.code).toBe(2);
    const lines = shownLines(result.stderr);
    expect(lines[0]).toMatch(WARNING);
    expect(lines[1]).toMatch(/TSYNC_API_KEY/);
    expect(JSON.parse(result.stderr.split('\n')[0] ?? '{}')).toMatchObject({ level: 40 });
  });

  it('the flag is a usage error that says why there is none', async () => {
    const result = await runMain(['sync', '--metadata-encoding', 'json'], {});
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/unknown flag --metadata-encoding: .*custom_metadata/);
  });
});
