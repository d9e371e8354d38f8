/**
 * docs/operating.md's table of metrics lists every metric the worker's registry exports, with its
 * type and labels, and nothing else: a metric added, renamed or relabelled fails here until the
 * page says so.
 */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log.js';
import { createWorkerMetrics } from '../../../src/worker/metrics.js';
import { firstTable, readDoc, sections } from '../../helpers/docs-markdown.js';

/** `name type labels`, one string per metric, sorted: what the page and the registry are compared on. */
function line(name: string, type: string, labels: readonly string[]): string {
  return `${name} ${type} ${[...labels].join(',')}`;
}

describe("docs/operating.md's metrics table", () => {
  it('lists every metric the worker exports, with its type and labels', async () => {
    const metrics = createWorkerMetrics(undefined, silentLogger);
    const registered = (await metrics.registry.getMetricsAsJSON()).map((metric) => {
      const labels = (metrics.registry.getSingleMetric(metric.name) as unknown as { labelNames: string[] })
        .labelNames;
      return line(metric.name, String(metric.type), labels);
    });

    const section = sections(readDoc('docs/operating.md'), 2).find((s) => s.heading === 'Metrics');
    const table = section && firstTable(section.lines);
    if (!table) throw new Error('docs/operating.md has no table under "## Metrics"');
    expect(table.header).toEqual(['metric', 'type', 'labels', 'meaning']);
    const documented = table.rows.map(([name = '', type = '', labels = '']) =>
      line(
        name.replaceAll('`', ''),
        type,
        labels
          .split(',')
          .map((label) => label.trim())
          .filter((label) => label !== ''),
      ),
    );
    expect(documented.filter((row) => row.split(' ')[0]?.startsWith('tsync_') !== true)).toEqual([]);
    expect([...documented].sort()).toEqual([...registered].sort());
  });
});
