/**
 * The benchmark at a tiny scale: it runs end to end and prints every figure, ratio and target, and
 * writes them as JSON. No timing is asserted (speed is for `npm run bench`). Runs the compiled
 * bench (dist/bench/, built by `npm test` or `npm run build`), as `npm run bench` does. The whole
 * runs use `--in-process` (no child per measured task: ~35 node start-ups saved); one small run
 * keeps the children, whose JSON line carries every figure.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../src/util/paths.js';
import { tempDir } from '../helpers/tmp.js';

const RUN = join(projectRoot(), 'dist', 'bench', 'run.js');

function bench(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [RUN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

const FIGURES = [
  'dataset',
  'backfill wall time',
  'backfill words/s',
  'backfill peak RSS',
  'floor A (DuckDB ingest)',
  'floor B (transfer)',
  'naive loader',
  'naive words/s',
  'idle run wall time',
  'idle run requests',
  'peak RSS 1x',
  'peak RSS 10x jobs',
  'latency-bound 1-way',
  'latency-bound 2-way',
  'latency-bound 4-way',
  'ratio backfill / max(floor A, floor B)',
  'ratio naive / backfill',
  'ratio 4-way / 1-way (speed-up)',
  'bench records, 512 MB budget, backfill',
  'bench records, 256 MB budget, full',
  'hour-long records, 512 MB budget, incremental',
  'hour-long records, 256 MB budget, backfill',
  'hour-long records, 1000 MB budget, backfill',
];

const TARGETS = [
  'backfill vs floors',
  'naive vs backfill',
  'idle run',
  'backfill peak RSS',
  'RSS at 10x jobs',
  '4-way vs 1-way',
  'peak RSS at the default budget, bench records',
  'peak RSS at the default budget, hour-long records',
];

describe('npm run bench', () => {
  beforeAll(() => {
    if (!existsSync(RUN)) throw new Error(`${RUN} is missing: run \`npm run build\` first`);
  });

  it('prints every figure, ratio and target of a tiny run and writes them as JSON', {
    timeout: 180_000,
  }, async () => {
    const out = tempDir('tsync-bench-smoke-');
    // Every phase but `incremental`, which has its own small run below (two histories, 12 syncs).
    const phases = 'floor-b,backfill,idle,floor-a,naive,memory,latency,budget';
    const { code, stdout, stderr } = await bench([
      '--scale',
      '0.005',
      '--latency-ms',
      '5',
      '--only',
      phases,
      '--out',
      out,
      '--in-process',
    ]);
    expect(code, stderr).toBe(0);
    for (const label of FIGURES) expect(stdout).toContain(`  ${label}  `);
    for (const name of TARGETS)
      expect(stdout).toMatch(new RegExp(`(met |MISS)  ${name.replace(/[()/]/g, '\\$&')}`));
    expect(stdout).toContain('| figure | value |');
    const [file] = readdirSync(out).filter((name) => name.endsWith('.json'));
    const figures = JSON.parse(readFileSync(join(out, file ?? 'missing'), 'utf8')) as Record<string, unknown>;
    for (const key of [
      'machine',
      'dataset',
      'backfill',
      'floorA',
      'floorB',
      'naive',
      'idle',
      'memory',
      'latency',
      'budget',
    ]) {
      expect(figures).toHaveProperty(key);
    }
  });

  it('runs the incremental phase alone, at two histories, with bytes written and its targets', {
    timeout: 180_000,
  }, async () => {
    const out = tempDir('tsync-bench-smoke-');
    const { code, stdout, stderr } = await bench([
      '--phase',
      'incremental',
      '--scale',
      '0.004',
      '--out',
      out,
      '--in-process',
    ]);
    expect(code, stderr).toBe(0);
    for (const history of [4, 40]) {
      for (const step of [
        'file',
        'idle',
        'one new job',
        '1% changed',
        'reconcile, recent window',
        'reconcile, whole history',
      ])
        expect(stdout).toContain(`  incremental H=${history}: ${step}  `);
    }
    expect(stdout).toMatch(/MB written/);
    for (const name of ['one new job writes', 'one new job, larger history', 'file per JSON byte'])
      expect(stdout).toMatch(new RegExp(`(met |MISS)  ${name.replace(/[()/,]/g, '\\$&')}`));
    // The whole-history reconcile found the job deleted upstream; the recent window did not reach it.
    expect(stdout).toMatch(/H=40: reconcile, whole history +.* 1 deleted/);
  });

  it('measures each task in a child process of its own: every task kind, its figures read back', {
    timeout: 180_000,
  }, async () => {
    const out = tempDir('tsync-bench-smoke-');
    const { code, stdout, stderr } = await bench([
      '--scale',
      '0.005',
      '--only',
      'floor-b,backfill,floor-a,naive',
      '--out',
      out,
    ]);
    expect(code, stderr).toBe(0);
    for (const label of [
      'backfill wall time',
      'backfill peak RSS',
      'floor A (DuckDB ingest)',
      'floor B (transfer)',
      'naive loader',
    ])
      expect(stdout).toContain(`  ${label}  `);
    const [file] = readdirSync(out).filter((name) => name.endsWith('.json'));
    const figures = JSON.parse(readFileSync(join(out, file ?? 'missing'), 'utf8')) as {
      backfill?: { peakRssMb: number; cpuMs: number };
      floorA?: { peakRssMb: number };
      floorB?: { peakRssMb: number };
    };
    // A child's own figures: a real peak RSS and CPU time each, read from its JSON line.
    for (const rss of [figures.backfill?.peakRssMb, figures.floorA?.peakRssMb, figures.floorB?.peakRssMb])
      expect(rss).toBeGreaterThan(10);
    expect(figures.backfill?.cpuMs).toBeGreaterThan(0);
    expect(figures).toHaveProperty('naive');
  });

  it('refuses an unknown phase with a usage error (exit 2)', async () => {
    const { code, stderr } = await bench(['--only', 'everything']);
    expect(code).toBe(2);
    expect(stderr).toContain('--only');
  });
});
