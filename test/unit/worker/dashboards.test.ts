/**
 * The operator's Grafana dashboard (docs/grafana/transcript-sync.json) and Prometheus rules
 * (docs/prometheus/transcript-sync-rules.yml) name only series the worker exports: every metric
 * and label their PromQL names exists in the worker's live registry, as Prometheus shows it once
 * scraped. The dashboard has the shape Grafana imports; the rules parse, have the keys Prometheus
 * reads, and are exactly docs/operating.md's "Alerts worth setting" table. With promtool on the
 * PATH, it checks the rules and the dashboard's queries too (skipped, saying so, without it).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import { silentLogger } from '../../../src/log.js';
import { projectRoot } from '../../../src/util/paths.js';
import { createWorkerMetrics } from '../../../src/worker/metrics.js';
import { firstTable, readDoc, sections } from '../../helpers/docs-markdown.js';
import { tempDir } from '../../helpers/tmp.js';

const DASHBOARD = 'docs/grafana/transcript-sync.json';
const RULES = 'docs/prometheus/transcript-sync-rules.yml';

/** Labels Prometheus attaches to every scraped series; a metric's own label of that name becomes `exported_<name>`. */
const TARGET_LABELS = ['job', 'instance'];
/** Words of PromQL that are neither metrics nor functions. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'inf', 'nan']);
/** Words whose parenthesised list names labels. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);
/** PromQL's aggregation operators: `sum by (kind) (...)` puts the label list between the word and its `(`. */
const AGGREGATIONS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
]);
/** Grafana's own variables a dashboard query may use. */
const GRAFANA_VARIABLES = new Set(['__rate_interval', '__interval', '__range', '__range_s', '__interval_ms']);

/** Every series name a scrape of the worker shows, with the labels it carries there. */
async function scrapedSeries(): Promise<Map<string, Set<string>>> {
  const metrics = createWorkerMetrics(undefined, silentLogger);
  const series = new Map<string, Set<string>>();
  const add = (name: string, labels: readonly string[]) => {
    const visible = labels.map((label) => (TARGET_LABELS.includes(label) ? `exported_${label}` : label));
    series.set(name, new Set([...visible, ...TARGET_LABELS]));
  };
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    const labels = (metrics.registry.getSingleMetric(metric.name) as unknown as { labelNames: string[] })
      .labelNames;
    add(metric.name, labels);
    if (String(metric.type) === 'histogram') {
      add(`${metric.name}_bucket`, [...labels, 'le']);
      add(`${metric.name}_sum`, labels);
      add(`${metric.name}_count`, labels);
    }
    if (String(metric.type) === 'summary') {
      add(metric.name, [...labels, 'quantile']);
      add(`${metric.name}_sum`, labels);
      add(`${metric.name}_count`, labels);
    }
  }
  // Prometheus's own series of each target it scrapes.
  add('up', []);
  return series;
}

/** What a PromQL expression names: each selector's metric and matcher labels, and the grouping labels. */
interface Names {
  readonly selectors: { readonly metric: string; readonly labels: readonly string[] }[];
  readonly grouping: readonly string[];
}

/**
 * The names in a PromQL expression, by a scan of its tokens (enough for the expressions these
 * files hold): strings, ranges and Grafana variables are dropped first; a word before `(` is a
 * function, or a label list after `by`, `on` and the like; any other word is a metric, and the
 * words of the `{...}` after it are its matchers' labels.
 */
function promqlNames(expression: string): Names {
  const text = expression
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\boffset\s+-?\w+/g, '')
    .replace(/\$\{?\w+\}?/g, '0');
  const tokens = [...text.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*|\d+(?:\.\d*)?(?:e[+-]?\d+)?|\S/gi)].map(
    (match) => match[0],
  );
  const selectors: { metric: string; labels: string[] }[] = [];
  const grouping: string[] = [];
  const word = (token: string | undefined) => token !== undefined && /^[A-Za-z_:]/.test(token);
  /** The words up to the bracket that closes the one at `start`; returns the index after it. */
  const list = (start: number, close: string, into: string[]): number => {
    let at = start + 1;
    for (; at < tokens.length && tokens[at] !== close; at++) {
      const token = tokens[at];
      if (token !== undefined && word(token)) into.push(token);
    }
    if (at >= tokens.length) throw new Error(`unclosed ${tokens[start]} in ${expression}`);
    return at + 1;
  };
  for (let at = 0; at < tokens.length; ) {
    const token = tokens[at] as string;
    const next = tokens[at + 1];
    if (!word(token) || KEYWORDS.has(token.toLowerCase())) {
      if (token === '{') throw new Error(`a selector without a metric name in ${expression}`);
      at += 1;
    } else if (LABEL_LISTS.has(token)) {
      at = next === '(' ? list(at + 1, ')', grouping) : at + 1;
    } else if (next === '(' || AGGREGATIONS.has(token)) {
      at += 1; // a function or an aggregation
    } else {
      const labels: string[] = [];
      selectors.push({ metric: token, labels });
      at = next === '{' ? list(at + 1, '}', labels) : at + 1;
    }
  }
  return { selectors, grouping };
}

/** What `names` names that a scrape of the worker does not show, one line each. */
function unknownNames(names: Names, series: Map<string, Set<string>>, where: string): string[] {
  const wrong: string[] = [];
  const seen = new Set<string>();
  for (const { metric, labels } of names.selectors) {
    const known = series.get(metric);
    if (!known) {
      wrong.push(`${where}: no metric ${metric}`);
      continue;
    }
    for (const label of known) seen.add(label);
    for (const label of labels) {
      if (label !== '__name__' && !known.has(label)) wrong.push(`${where}: ${metric} has no label ${label}`);
    }
  }
  for (const label of names.grouping) {
    if (!seen.has(label)) wrong.push(`${where}: no metric of the expression has a label ${label}`);
  }
  return wrong;
}

const target = z.object({ refId: z.string().min(1), expr: z.string().min(1) });
const gridPos = z.object({
  h: z.number().int().positive(),
  w: z.number().int().min(1).max(24),
  x: z.number().int().min(0).max(23),
  y: z.number().int().min(0),
});
const panel = z.object({
  id: z.number().int(),
  type: z.string().min(1),
  title: z.string().min(1),
  gridPos,
  datasource: z.object({ type: z.literal('prometheus'), uid: z.string() }).optional(),
  targets: z.array(target).optional(),
});
const variable = z.object({
  name: z.string().min(1),
  type: z.string().min(1),
  definition: z.string().optional(),
  query: z.union([z.string(), z.object({ query: z.string() })]).optional(),
});
const dashboardSchema = z.object({
  __inputs: z
    .array(z.object({ name: z.string(), type: z.literal('datasource'), pluginId: z.literal('prometheus') }))
    .length(1),
  uid: z.string().regex(/^[A-Za-z0-9_-]{1,40}$/),
  title: z.string().min(1),
  schemaVersion: z.number().int().min(30),
  panels: z.array(panel).min(1),
  templating: z.object({ list: z.array(variable) }),
});
type Dashboard = z.infer<typeof dashboardSchema>;

const ruleSchema = z.strictObject({
  alert: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
  expr: z.string().min(1),
  for: z.string().regex(/^\d+[smhd]$/),
  labels: z.object({ severity: z.enum(['critical', 'warning', 'info']) }),
  annotations: z.object({ summary: z.string().min(1), description: z.string().min(1) }),
});
const rulesSchema = z.strictObject({
  groups: z.array(z.strictObject({ name: z.string().min(1), rules: z.array(ruleSchema).min(1) })).min(1),
});
type Rule = z.infer<typeof ruleSchema>;

const readDashboard = (): Dashboard =>
  dashboardSchema.parse(JSON.parse(readFileSync(join(projectRoot(), DASHBOARD), 'utf8')));
const readRules = (): Rule[] =>
  rulesSchema
    .parse(parseYaml(readFileSync(join(projectRoot(), RULES), 'utf8')))
    .groups.flatMap((g) => g.rules);

/** Every PromQL expression of the dashboard, named by where it sits. */
function dashboardExpressions(dashboard: Dashboard): [string, string][] {
  const found: [string, string][] = [];
  for (const p of dashboard.panels) {
    for (const t of p.targets ?? []) found.push([`panel "${p.title}" ${t.refId}`, t.expr]);
  }
  for (const v of dashboard.templating.list) {
    if (v.type !== 'query') continue;
    const query = v.definition ?? (typeof v.query === 'string' ? v.query : v.query?.query) ?? '';
    const labelValues = /^label_values\((.*),\s*(\w+)\)$/.exec(query);
    if (!labelValues) throw new Error(`variable ${v.name}: not a label_values(selector, label) query`);
    // The label asked for, as a matcher of the selector, so that it is checked like one.
    const selector = labelValues[1] as string;
    const label = `${labelValues[2]}=""`;
    found.push([
      `variable ${v.name}`,
      selector.includes('{') ? selector.replace('{', `{${label},`) : `${selector}{${label}}`,
    ]);
  }
  return found;
}

/** Seconds in a duration of the rules file (`5m`) or the docs (`5 min`). */
function seconds(duration: string): number {
  const match = /^(\d+)\s*(s|m|min|h|d)$/.exec(duration.trim());
  if (!match) throw new Error(`not a duration: ${duration}`);
  const unit = { s: 1, m: 60, min: 60, h: 3_600, d: 86_400 }[match[2] as 's' | 'm' | 'min' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

/** docs/operating.md's alerts, as the rules file must hold them. */
function documentedAlerts(): { alert: string; expr: string; for: number; summary: string; todo: string }[] {
  const section = sections(readDoc('docs/operating.md'), 2).find((s) => s.heading === 'Alerts worth setting');
  const table = section && firstTable(section.lines);
  if (!table) throw new Error('docs/operating.md has no table under "## Alerts worth setting"');
  expect(table.header).toEqual(['alert', 'rule', 'expression (PromQL)', 'what to do']);
  return table.rows.map(([summary = '', rule = '', expression = '', todo = '']) => {
    const match = /^`([^`]+)`(.*)$/.exec(expression);
    if (!match) throw new Error(`alert "${summary}": its expression is not in backticks`);
    const wait = /\bfor (\d+ (?:s|min|h|d))\b/.exec(match[2] as string)?.[1];
    return {
      alert: rule.replaceAll('`', ''),
      expr: match[1] as string,
      for: wait ? seconds(wait) : 0,
      summary,
      todo,
    };
  });
}

/** promtool on the PATH, if any. */
function promtool(): string | undefined {
  return (process.env['PATH'] ?? '')
    .split(delimiter)
    .map((dir) => join(dir, 'promtool'))
    .find((path) => path !== 'promtool' && existsSync(path));
}

describe('the PromQL scan', () => {
  it('finds metrics, matcher labels and grouping labels, and nothing else', () => {
    expect(
      promqlNames(
        'histogram_quantile(0.9, sum by (le, kind) (rate(a_bucket{job=~"$job", x!="a,b}"}[$__rate_interval] offset 1h))) / on(kind) group_left b > 0.9 * 2^20 and c',
      ),
    ).toEqual({
      selectors: [
        { metric: 'a_bucket', labels: ['job', 'x'] },
        { metric: 'b', labels: [] },
        { metric: 'c', labels: [] },
      ],
      grouping: ['le', 'kind', 'kind'],
    });
  });
});

describe("the worker's labels", () => {
  it('take none of the names Prometheus gives every scraped series', async () => {
    const metrics = createWorkerMetrics(undefined, silentLogger);
    const clashing = (await metrics.registry.getMetricsAsJSON()).flatMap((metric) =>
      (metrics.registry.getSingleMetric(metric.name) as unknown as { labelNames: string[] }).labelNames
        .filter((label) => TARGET_LABELS.includes(label))
        .map((label) => `${metric.name}{${label}}`),
    );
    expect(clashing).toEqual([]);
  });
});

describe('the Grafana dashboard', () => {
  it('has the structure Grafana imports, on a Prometheus data source input', () => {
    const dashboard = readDashboard();
    const input = `\${${dashboard.__inputs[0]?.name}}`;
    const panels = dashboard.panels.filter((p) => p.type !== 'row');
    expect(panels.length).toBeGreaterThan(5);
    for (const p of panels) {
      expect(p.targets?.length, `panel "${p.title}" has no targets`).toBeGreaterThan(0);
      expect(p.datasource?.uid, `panel "${p.title}"'s data source`).toBe(input);
      expect(p.gridPos.x + p.gridPos.w, `panel "${p.title}" is wider than the grid`).toBeLessThanOrEqual(24);
    }
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const variables = dashboard.templating.list.map((v) => v.name);
    expect(variables).toEqual(expect.arrayContaining(['job', 'instance']));
    // Every variable a query uses is one of the dashboard's or Grafana's own.
    const used = dashboardExpressions(dashboard).flatMap(([, expr]) =>
      [...expr.matchAll(/\$\{?(\w+)\}?/g)].map((match) => match[1] as string),
    );
    expect(used.filter((name) => !variables.includes(name) && !GRAFANA_VARIABLES.has(name))).toEqual([]);
  });

  it('names only metrics and labels the worker exports', async () => {
    const series = await scrapedSeries();
    const expressions = dashboardExpressions(readDashboard());
    expect(expressions.flatMap(([where, expr]) => unknownNames(promqlNames(expr), series, where))).toEqual(
      [],
    );
  });

  it('shows runs, freshness, loading, requests, busy file, memory and queue', () => {
    const named = new Set(
      dashboardExpressions(readDashboard()).flatMap(([, expr]) =>
        promqlNames(expr).selectors.map((s) => s.metric),
      ),
    );
    const wanted = [
      'tsync_runs_total',
      'tsync_last_success_timestamp_seconds',
      'tsync_run_duration_seconds_bucket',
      'tsync_jobs_upserted_total',
      'tsync_records_quarantined_total',
      'tsync_requests_total',
      'tsync_request_retries_total',
      'tsync_rate_limit_pauses_total',
      'tsync_file_busy_total',
      'tsync_process_resident_memory_bytes',
      'tsync_queue_jobs',
      'tsync_queue_jobs_readable',
    ];
    expect(wanted.filter((metric) => !named.has(metric))).toEqual([]);
  });
});

describe('the Prometheus rules', () => {
  it('parse as YAML with the keys Prometheus reads', () => {
    expect(readRules().length).toBeGreaterThan(0);
  });

  it('name only metrics and labels the worker exports', async () => {
    const series = await scrapedSeries();
    expect(
      readRules().flatMap((rule) => unknownNames(promqlNames(rule.expr), series, `alert ${rule.alert}`)),
    ).toEqual([]);
  });

  it("are exactly docs/operating.md's alerts: names, expressions, waits, summaries and what to do", () => {
    const documented = documentedAlerts();
    const rules = readRules();
    expect(rules.map((r) => ({ alert: r.alert, expr: r.expr, for: seconds(r.for) }))).toEqual(
      documented.map(({ alert, expr, for: wait }) => ({ alert, expr, for: wait })),
    );
    for (const [i, doc] of documented.entries()) {
      const rule = rules[i] as Rule;
      expect(rule.annotations.summary).toBe(doc.summary);
      expect(rule.annotations.description.endsWith(doc.todo), `${rule.alert}'s description`).toBe(true);
    }
  });

  it("pass promtool check rules, and so do the dashboard's queries", ({ skip }) => {
    const tool = promtool();
    skip(tool === undefined, 'promtool is not on the PATH (Debian: the prometheus package)');
    const check = (file: string) => {
      try {
        execFileSync(tool as string, ['check', 'rules', file], { stdio: 'pipe', encoding: 'utf8' });
      } catch (error) {
        const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
        throw new Error(`promtool check rules ${file}:\n${stdout}${stderr}`);
      }
    };
    check(join(projectRoot(), RULES));
    // The dashboard's queries as recording rules, its variables given values as Grafana would.
    const dashboard = readDashboard();
    const values = new Map(
      dashboard.templating.list.map((v) => [
        v.name,
        v.type === 'query' ? '.*' : typeof v.query === 'string' ? v.query : '',
      ]),
    );
    const rules = dashboard.panels.flatMap((p) =>
      (p.targets ?? []).map((t) => ({
        record: `dashboard:panel_${p.id}_${t.refId}`,
        expr: t.expr
          .replace(/\$__\w+/g, '5m')
          .replace(/\$\{?(\w+)\}?/g, (_, name: string) => values.get(name) ?? name),
      })),
    );
    const file = join(tempDir(), 'dashboard-queries.yml');
    writeFileSync(file, stringifyYaml({ groups: [{ name: 'dashboard', rules }] }));
    check(file);
  });
});
