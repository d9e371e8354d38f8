/**
 * The arrows of the layout: src/ is the product and imports only itself; jobs/ and bench/ build on
 * src/; test/ may import anything. So the build (src, jobs and bench: tsconfig.build.json) never
 * pulls in test code or vitest. Inside src/ the folders are ranked bottom up (architecture.json):
 * dependency-cruiser (.dependency-cruiser.cjs, also run by `npm run lint`) finds no cycle and no
 * import of a folder ranked at or above the importer's.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { cruise } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../helpers/tmp.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'out') yield* sources(path);
    else if (entry.isFile() && entry.name.endsWith('.ts')) yield path;
  }
}

/** Every module specifier a file names: static imports, re-exports and `import()` of a literal. */
function specifiers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
}

interface Arrow {
  readonly from: string;
  readonly to: string;
}

/** Imports of the files under `folder`, relative ones as repository paths, packages as named. */
function arrowsFrom(folder: string): Arrow[] {
  const arrows: Arrow[] = [];
  for (const file of sources(join(ROOT, folder))) {
    for (const spec of specifiers(file)) {
      const to = spec.startsWith('.') ? relative(ROOT, resolve(dirname(file), spec)) : spec;
      arrows.push({ from: relative(ROOT, file), to: to.split(sep).join('/') });
    }
  }
  return arrows;
}

/** What dependency-cruiser finds against the repository's rules in `root`/src: `rule: from -> to` each. */
async function violationsIn(root: string): Promise<string[]> {
  const options = await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.cjs'));
  const result = await cruise(
    ['src'],
    { ...options, baseDir: root },
    {},
    {
      tsConfig: extractTSConfig(join(root, 'tsconfig.json')),
    },
  );
  const output = result.output as {
    summary: { violations: { rule: { name: string }; from: string; to: string }[] };
  };
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
}

describe('the arrows of the layout', () => {
  it('src/ imports nothing from jobs/, bench/ or test/', () => {
    const arrows = arrowsFrom('src');
    expect(arrows.length).toBeGreaterThan(100);
    const outside = arrows.filter((a) => a.to.startsWith('.') || /^(jobs|bench|test)\//.test(a.to));
    expect(outside).toEqual([]);
  });

  it('src/ keeps the ranks of architecture.json: no cycle, no import upward or sideways', async () => {
    const violations = await violationsIn(ROOT);
    expect(violations).toEqual([]);
  });

  it('the rules catch an upward import (the store importing the loader among them), a sideways one, a cycle, a stage entered past its index, the simulator importing the product, and Redis loaded where no command talks to it', async () => {
    const tree = tempDir();
    const write = (file: string, text: string) => {
      mkdirSync(dirname(join(tree, file)), { recursive: true });
      writeFileSync(join(tree, file), text);
    };
    write('tsconfig.json', readFileSync(join(ROOT, 'tsconfig.json'), 'utf8'));
    write('src/load/store.ts', "import { walk } from '../extract/walk.js';\nexport const store = walk;\n");
    write(
      'src/extract/walk.ts',
      "import type { Store } from '../load/types.js';\nexport const walk = 1 as Store;\n",
    );
    write('src/load/types.ts', 'export type Store = number;\n');
    write(
      'src/store/open.ts',
      "import type { Store } from '../load/types.js';\nexport const open = 1 as Store;\n",
    );
    write(
      'src/sync/run.ts',
      "import { report } from '../analytics/report.js';\nexport const run = report;\n",
    );
    write('src/analytics/report.ts', 'export const report = 1;\n');
    write(
      'src/simulator/server.ts',
      "import { walk } from '../extract/walk.js';\nexport const server = walk;\n",
    );
    write('src/cli/a.ts', "import { b } from './b.js';\nexport const a = b;\n");
    write('src/cli/b.ts', "import { a } from './a.js';\nexport const b = a;\n");
    write('src/sync/plan.ts', "import { walk } from '../extract/index.js';\nexport const plan = walk;\n");
    write('src/extract/index.ts', "export { walk } from './walk.js';\n");
    write('src/sync/write.ts', "import { open } from '../store/open.js';\nexport const write = open;\n");
    // ioredis, as a package the tree holds; the worker may import it, a command only load the worker when it runs.
    write('node_modules/ioredis/package.json', '{ "name": "ioredis", "main": "index.js" }\n');
    write('node_modules/ioredis/index.js', 'exports.Redis = class {};\n');
    write('src/worker/queue.ts', "import { Redis } from 'ioredis';\nexport const queue = Redis;\n");
    write('src/store/cache.ts', "import { Redis } from 'ioredis';\nexport const cache = Redis;\n");
    write('src/cli/status.ts', "import { queue } from '../worker/queue.js';\nexport const status = queue;\n");
    write(
      'src/cli/enqueue.ts',
      "import type { queue } from '../worker/queue.js';\nexport const enqueue = async (): Promise<typeof queue> => (await import('../worker/queue.js')).queue;\n",
    );
    expect((await violationsIn(tree)).sort()).toEqual([
      'extract-entered-by-its-index: src/load/store.ts -> src/extract/walk.ts',
      'extract-imports-no-higher-rank: src/extract/walk.ts -> src/load/types.ts',
      'no-circular: src/cli/a.ts -> src/cli/b.ts',
      'redis-modules-loaded-when-run: src/cli/status.ts -> src/worker/queue.ts',
      'redis-packages-only-in-the-worker: src/store/cache.ts -> node_modules/ioredis/index.js',
      'simulator-imports-no-product: src/simulator/server.ts -> src/extract/walk.ts',
      'store-entered-by-its-index: src/sync/write.ts -> src/store/open.ts',
      'store-imports-no-higher-rank: src/store/open.ts -> src/load/types.ts',
      'sync-imports-no-higher-rank: src/sync/run.ts -> src/analytics/report.ts',
    ]);
  });

  it('what the build compiles (src, jobs, bench) imports no test code and no vitest', () => {
    const build = JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as {
      include: string[];
    };
    expect([...build.include].sort()).toEqual(['bench', 'jobs', 'src']);
    const arrows = build.include.flatMap(arrowsFrom);
    const testCode = arrows.filter(
      (a) => a.to.startsWith('test/') || a.to === 'vitest' || a.to.startsWith('vitest/'),
    );
    expect(testCode).toEqual([]);
    expect(arrows.some((a) => a.to.startsWith('src/'))).toBe(true);
  });
});

/** Most lines a file of src/ holds: one idea a file, read in one sitting. */
const MAX_FILE_LINES = 300;

describe('the size of a file', () => {
  it(`no file of src/ is longer than ${MAX_FILE_LINES} lines`, () => {
    const files = [...sources(join(ROOT, 'src'))];
    expect(files.length).toBeGreaterThan(100);
    const long = files
      .map((file) => ({
        file: relative(ROOT, file),
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter(({ lines }) => lines > MAX_FILE_LINES);
    expect(long).toEqual([]);
  });
});
