import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { commandHelp, parseCommandArgs } from '../../../src/cli/command.js';
import { command } from '../../../src/cli/commands/simulate.js';
import { ConfigError } from '../../../src/errors.js';

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

  it('lists no job older than --retention', async () => {
    // 10 jobs a day ending now: 20 jobs over two days, of which --retention 1d keeps about half.
    const cli = await startCli(['--port', '0', '--jobs', '20', '--end', 'now', '--rate', '10/d']);
    const base = /TSYNC_BASE_URL=(\S+)/.exec(cli.output())?.[1];
    const count = async (): Promise<number> => {
      const res = await fetch(`${base}/v2/transcription?limit=100`, {
        headers: { 'x-service-key': 'sim-key' },
      });
      return ((await res.json()) as { items: unknown[] }).items.length;
    };
    expect(await count()).toBe(20);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await cli.done).toBe(0);
    const kept = await startCli([
      '--port',
      '0',
      '--jobs',
      '20',
      '--end',
      'now',
      '--rate',
      '10/d',
      '--retention',
      '1d',
    ]);
    const keptBase = /TSYNC_BASE_URL=(\S+)/.exec(kept.output())?.[1];
    const res = await fetch(`${keptBase}/v2/transcription?limit=100`, {
      headers: { 'x-service-key': 'sim-key' },
    });
    const items = ((await res.json()) as { items: { created_at: string }[] }).items;
    expect(items.length).toBeGreaterThan(5);
    expect(items.length).toBeLessThan(15);
    for (const item of items)
      expect(Date.parse(item.created_at)).toBeGreaterThan(Date.now() - 86_400_000 - 60_000);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await kept.done).toBe(0);
  });

  it('serves the jobs of --jobs N as the oldest N of --jobs M with the same seed, byte for byte', async () => {
    const items = async (jobs: number, offset: number) => {
      const cli = await startCli([
        '--port',
        '0',
        '--jobs',
        String(jobs),
        '--seed',
        '5',
        '--log-level',
        'silent',
      ]);
      try {
        const url = /TSYNC_BASE_URL=(\S+)/.exec(cli.output())?.[1];
        const res = await fetch(`${url}/v2/transcription?offset=${offset}&limit=30`, {
          headers: { 'x-service-key': 'sim-key' },
        });
        const page = await res.text();
        return page.slice(page.indexOf('"items":['), -2);
      } finally {
        process.emit('SIGTERM', 'SIGTERM');
        await cli.done;
      }
    };
    const short = await items(30, 0);
    expect(short.length).toBeGreaterThan(10_000);
    expect(await items(75, 45)).toBe(short);
  });

  it('grows a history that ends now with --end now --grow', async () => {
    const cli = await startCli([
      '--port',
      '0',
      '--jobs',
      '20',
      '--end',
      'now',
      '--grow',
      '600/m',
      '--log-level',
      'silent',
    ]);
    try {
      expect(cli.output()).toContain('(20 jobs, seed 7, growing 600/m)');
      const url = /TSYNC_BASE_URL=(\S+)/.exec(cli.output())?.[1];
      const listed = async () => {
        const res = await fetch(`${url}/v2/transcription?limit=100`, {
          headers: { 'x-service-key': 'sim-key' },
        });
        return ((await res.json()) as { items: { created_at: string }[] }).items;
      };
      const first = await listed();
      expect(first.length).toBeGreaterThanOrEqual(20);
      // 20 jobs at the default 2000 a day span the 14.4 minutes before now.
      expect(Date.parse(first.at(-1)!.created_at)).toBeGreaterThan(Date.now() - 20 * 60_000);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect((await listed()).length).toBeGreaterThan(first.length);
    } finally {
      process.emit('SIGTERM', 'SIGTERM');
      expect(await cli.done).toBe(0);
    }
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
    await expect(run(['--grow', '60'])).rejects.toThrow(/--grow: must be jobs per unit like 60\/m/);
    await expect(run(['--rate', '0/d'])).rejects.toThrow(/--rate/);
    await expect(run(['--start', 'last tuesday'])).rejects.toThrow(
      /--start: "last tuesday" is not an ISO 8601 date/,
    );
    await expect(run(['--start', '2026-01-01', '--end', 'now'])).rejects.toThrow(/--start or --end/);
    // Past a string V8 can build, or a timer can wait: refused, not a crash or an instant answer.
    await expect(run(['--record-bytes', '2000000000'])).rejects.toThrow(/--record-bytes: must be/);
    await expect(run(['--latency', '9999999999999'])).rejects.toThrow(/--latency: must be/);
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
      '--start',
      '--rate',
      '--end',
      '--grow',
    ]) {
      expect(help).toContain(flag);
    }
  });
});
