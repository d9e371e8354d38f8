import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { commandHelp, parseCommandArgs } from '../src/cli/command.js';
import { command } from '../src/cli/simulate.js';
import { ConfigError } from '../src/errors.js';

/** Runs `simulate` in this process; resolves once it printed its env line. */
async function startCli(argv: string[]): Promise<{ output: () => string; done: Promise<number> }> {
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  const done = command.run({
    ...parseCommandArgs(command, argv),
    stdout,
    stderr: new PassThrough(),
    env: {},
  });
  while (!text.includes('TSYNC_API_KEY=')) {
    const failed = await Promise.race([
      done.then(() => true),
      new Promise((r) => setTimeout(() => r(false), 20)),
    ]);
    if (failed) throw new Error(`simulate stopped early: ${text}`);
  }
  return { output: () => text, done };
}

describe('transcript-sync simulate', () => {
  it('serves the requested jobs with the given key, prints the env line, and exits 0 on SIGTERM', async () => {
    const cli = await startCli([
      '--port',
      '0',
      '--jobs',
      '9',
      '--key',
      'k-123',
      '--seed',
      '3',
      '--log-level',
      'silent',
    ]);
    const line = /TSYNC_BASE_URL=(\S+) TSYNC_API_KEY=k-123/.exec(cli.output());
    expect(line).not.toBeNull();
    const res = await fetch(`${line?.[1]}/v2/transcription?limit=100`, {
      headers: { 'x-service-key': 'k-123' },
    });
    const body = (await res.json()) as { items: { kind: string }[] };
    expect(body.items.filter((i) => i.kind === 'pre-recorded')).toHaveLength(5);
    expect(body.items.filter((i) => i.kind === 'live')).toHaveLength(4);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await cli.done).toBe(0);
    await expect(fetch(`${line?.[1]}/v2/live`)).rejects.toThrow();
  });

  it('rejects bad flag values and unknown flags as configuration errors', async () => {
    const run = (argv: string[]) =>
      command.run({
        ...parseCommandArgs(command, argv),
        stdout: new PassThrough(),
        stderr: new PassThrough(),
        env: {},
      });
    await expect(run(['--port', 'eighty'])).rejects.toBeInstanceOf(ConfigError);
    await expect(run(['--fault-rate', '2'])).rejects.toThrow(/--fault-rate/);
    expect(() => parseCommandArgs(command, ['--jobz', '3'])).toThrow(ConfigError);
  });

  it('documents every flag in --help', () => {
    const help = commandHelp(command);
    for (const flag of [
      '--port',
      '--host',
      '--jobs',
      '--seed',
      '--key',
      '--limit-cap',
      '--latency',
      '--utterances',
      '--words',
      '--fault-rate',
    ]) {
      expect(help).toContain(flag);
    }
  });
});
