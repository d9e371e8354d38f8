/** The program itself, as a user runs it: bin/transcript-sync from the built dist/. */
import { describe, expect, it } from 'vitest';
import { runCli } from './helpers/cli.js';

const COMMANDS = [
  'demo',
  'sync',
  'status',
  'simulate',
  'worker',
  'enqueue',
  'report',
  'query',
  'export',
  'quarantine',
];

describe('transcript-sync', () => {
  it('--help lists every command', async () => {
    const result = await runCli(['--help']);
    expect(result.code).toBe(0);
    for (const command of COMMANDS) expect(result.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  });

  it.each(COMMANDS)('%s --help shows its usage and exits 0', async (command) => {
    const result = await runCli([command, '--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`Usage: transcript-sync ${command}`);
    expect(result.stdout).toContain('--help');
  });

  it('an unknown command or flag is a one-line error with exit 2 that points at --help', async () => {
    const unknown = await runCli(['synk']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--help');
    const badFlag = await runCli(['status', '--colour']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr.trim().split('\n')).toHaveLength(1);
    expect(badFlag.stderr).toContain('transcript-sync status --help');
  });

  it('a bad setting names the variable it came from', async () => {
    const result = await runCli(['sync'], { TSYNC_API_KEY: 'k', TSYNC_BASE_URL: 'ftp://example.test' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('TSYNC_BASE_URL');
    const flag = await runCli(['sync', '--page-size', '0'], {
      TSYNC_API_KEY: 'k',
      TSYNC_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('--page-size');
  });
});
