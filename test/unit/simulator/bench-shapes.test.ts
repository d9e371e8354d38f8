/**
 * The bench's account shapes (bench/datasets.ts) at the smoke test's scale, each served by the
 * bench's simulator service in this process and written as the NDJSON the floors read, counted as
 * the bench counts it: the jobs of each shape and the sizes that set the shapes apart. The smoke
 * test (test/e2e/bench-smoke.test.ts) runs the phases on two of them.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { datasets, SHAPES } from '../../../bench/datasets.js';
import { type DatasetFile, startSimService } from '../../../bench/sim-service.js';
import { onCleanup } from '../../helpers/cleanup.js';
import { tempDir } from '../../helpers/tmp.js';

/** The smoke test's `--scale`. */
const SMOKE_SCALE = 0.001;

describe("the bench's account shapes", () => {
  it('are four accounts of their own, in report order, whose jobs differ in size', async () => {
    const shapes = datasets(SMOKE_SCALE, new Date(), true).shapes;
    expect(shapes.map((shape) => shape.name)).toEqual([...SHAPES]);
    const dir = tempDir();
    const served: DatasetFile[] = [];
    for (const shape of shapes) {
      const sim = await startSimService(shape.sim);
      onCleanup(() => sim.close());
      const ndjson = sim.handlers['ndjson'] as (args: { path: string }) => DatasetFile;
      served.push(ndjson({ path: join(dir, `${shape.name}.ndjson`) }));
    }
    expect(served.map((dataset) => dataset.jobs)).toEqual([4, 10, 4, 10]);
    const wordsPerJob = served.map((dataset) => dataset.words / dataset.jobs);
    expect(wordsPerJob[0]).toBeGreaterThan(800);
    expect(wordsPerJob[1]).toBeGreaterThan(300);
    expect(wordsPerJob[1]).toBeLessThan(900);
    expect(wordsPerJob[2]).toBeGreaterThan(300);
    expect(wordsPerJob[2]).toBeLessThan(900);
    expect(wordsPerJob[3]).toBeGreaterThan(20);
    expect(wordsPerJob[3]).toBeLessThan(120);
  });
});
