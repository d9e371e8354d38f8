/** What ships: the production dependency tree stays small (pino 9.3.0 once shipped ~400 MB of test files). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import subset from 'semver/ranges/subset.js';
import { describe, expect, it } from 'vitest';
import { productionPackages } from '../../../bench/prod-size.js';
import { projectRoot } from '../../../src/util/paths.js';

const MB = 1024 * 1024;

describe('packaging', () => {
  it('the production node_modules stays under 150 MB', () => {
    const sizes = productionPackages();
    const total = sizes.reduce((n, p) => n + p.bytes, 0);
    const names = sizes.map((p) => p.name);
    // The measure is real: it sees the runtime dependencies and leaves the dev ones out.
    expect(names).toEqual(expect.arrayContaining(['pino', 'bullmq', '@duckdb/node-api']));
    expect(names).not.toContain('vitest');
    expect(names).not.toContain('typescript');
    expect(total, `${(total / MB).toFixed(1)} MB`).toBeLessThan(150 * MB);
    // No package ships its test suite: pino 9.3.0's test/ alone was ~400 MB.
    expect(sizes.find((p) => p.name === 'pino')?.bytes ?? 0).toBeLessThan(5 * MB);
  });

  it('engines asks for no Node that a dependency refuses', () => {
    const read = (file: string) => JSON.parse(readFileSync(join(projectRoot(), file), 'utf8'));
    const ours = (read('package.json') as { engines: { node: string } }).engines.node;
    const lock = read('package-lock.json') as {
      packages: Record<string, { engines?: { node?: string }; optional?: boolean }>;
    };
    // Every package `npm ci` installs, the dev ones too (`npm test` runs on them). Optional ones
    // are platform builds installed where they fit (a wasm fallback among them), not everywhere.
    const refusing = Object.entries(lock.packages)
      .filter(([path, info]) => path !== '' && !info.optional && info.engines?.node !== undefined)
      .filter(([, info]) => !subset(ours, info.engines?.node ?? '*'))
      .map(([path, info]) => `${path.replace(/^node_modules\//, '')} wants ${info.engines?.node}`);
    expect(refusing, `engines.node is ${ours}`).toEqual([]);
  });

  it('the image builds on a supported Node and compose publishes metrics on 127.0.0.1 only', () => {
    const dockerfile = readFileSync(join(projectRoot(), 'Dockerfile'), 'utf8');
    const bases = [...dockerfile.matchAll(/^FROM node:(\d+)-slim/gm)].map((m) => Number(m[1]));
    expect(bases.length).toBeGreaterThan(0);
    for (const major of bases) expect(major).toBeGreaterThanOrEqual(22);
    const compose = readFileSync(join(projectRoot(), 'docker-compose.yml'), 'utf8');
    expect(compose).toMatch(
      /- "127\.0\.0\.1:\$\{TSYNC_METRICS_PORT:-9464\}:9464"|- "127\.0\.0\.1:9464:9464"/,
    );
    expect(compose).not.toMatch(/^\s*- "9464:9464"/m);
  });

  it("the image and the launcher run the program with the same settings of glibc's malloc", () => {
    const dockerfile = readFileSync(join(projectRoot(), 'Dockerfile'), 'utf8');
    const launcher = readFileSync(join(projectRoot(), 'bin', 'transcript-sync'), 'utf8');
    for (const name of ['MALLOC_ARENA_MAX', 'MALLOC_MMAP_THRESHOLD_']) {
      const inImage = new RegExp(`\\b${name}=(\\d+)`).exec(dockerfile)?.[1];
      const inLauncher = new RegExp(`\\b${name}="\\$\\{${name}:-(\\d+)\\}"`).exec(launcher)?.[1];
      expect(inImage, `${name} in the Dockerfile`).toBeDefined();
      expect(inImage, `${name} in the Dockerfile and bin/transcript-sync`).toBe(inLauncher);
    }
  });
});
