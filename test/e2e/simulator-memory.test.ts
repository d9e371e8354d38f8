import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';

/** Peak resident set of a process, kB (Linux /proc). */
function peakRssKb(pid: number): number {
  const line = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(line?.[1]);
}

interface Served {
  readonly peakKb: number;
  readonly total: number;
  readonly oldest: string;
}

/**
 * Starts `simulate` with `jobs` jobs of about 800 words, reads its first, middle and last pages
 * (each built on request), and returns its peak RSS once it served them.
 */
async function serve(jobs: number): Promise<Served> {
  const cli = startCli(
    ['simulate', '--port', '0', '--jobs', String(jobs), '--utterances', '40', '--words', '15'],
    {},
  );
  let stdout = '';
  cli.child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  try {
    await cli.output(/TSYNC_API_KEY=/);
    const url = /TSYNC_BASE_URL=(\S+)/.exec(stdout)?.[1];
    expect(url, stdout).toBeDefined();
    const page = async (offset: number) => {
      const res = await fetch(`${url}/v2/transcription?offset=${offset}&limit=100`, {
        headers: { 'x-service-key': 'sim-key' },
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { next: string | null; items: { created_at: string }[] };
    };
    await page(0);
    await page(Math.floor(jobs / 2));
    const last = await page(jobs - 100);
    expect(last.items).toHaveLength(100);
    expect(last.next).toBeNull();
    return { peakKb: peakRssKb(cli.child.pid!), total: jobs, oldest: last.items.at(-1)!.created_at };
  } finally {
    cli.child.kill('SIGTERM');
    await cli.done;
  }
}

describe('the simulator of a big account', () => {
  it('serves a million jobs of about 800 words in about the memory of ten thousand', async () => {
    const small = await serve(10_000);
    const big = await serve(1_000_000);
    // The oldest job is the same job: a longer history only adds newer jobs.
    expect(big.oldest).toBe(small.oldest);
    // Records kept in memory take about 200 KB a job of this size (2 GB at 10,000 jobs): a design
    // that holds them fails both bounds.
    expect(big.peakKb).toBeLessThan(small.peakKb + 64 * 1024);
    expect(big.peakKb).toBeLessThan(400 * 1024);
  });
});
