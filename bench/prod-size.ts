/**
 * `npm run size`: the size on disk of the production dependency tree, what `npm ci --omit=dev`
 * (and the Docker image) ships: every package-lock entry not marked dev, measured in this
 * node_modules. Optional platform packages not installed here are skipped. Prints the total and
 * the ten largest packages. The test test/unit/repo/packaging.test.ts keeps the total under 150 MB.
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectRoot } from '../src/util/paths.js';

interface LockEntry {
  readonly dev?: boolean;
  readonly devOptional?: boolean;
}

export interface PackageSize {
  readonly name: string;
  /** bytes */
  readonly bytes: number;
}

/** bytes of `dir`, not following symlinks, without nested node_modules (their own lock entries). */
function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) total += dirBytes(path);
    else total += lstatSync(path).size;
  }
  return total;
}

export function productionPackages(root = projectRoot()): PackageSize[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const sizes: PackageSize[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith('node_modules/') || entry.dev || entry.devOptional) continue;
    const dir = join(root, path);
    if (!existsSync(dir)) continue;
    sizes.push({ name: path.slice('node_modules/'.length), bytes: dirBytes(dir) });
  }
  return sizes.sort((a, b) => b.bytes - a.bytes);
}

const MB = 1024 * 1024;

if (process.argv[1] === fileURLToPath(import.meta.url) && ['--help', '-h'].includes(process.argv[2] ?? '')) {
  process.stdout.write(
    'Usage: npm run size\n\nPrints the size on disk of the production dependency tree (what `npm ci --omit=dev`\nand the Docker image ship) and its ten largest packages.\n',
  );
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const sizes = productionPackages();
  const total = sizes.reduce((n, p) => n + p.bytes, 0);
  process.stdout.write(
    `production node_modules: ${(total / MB).toFixed(1)} MB in ${sizes.length} packages\n`,
  );
  for (const p of sizes.slice(0, 10))
    process.stdout.write(`  ${(p.bytes / MB).toFixed(1).padStart(7)} MB  ${p.name}\n`);
}
