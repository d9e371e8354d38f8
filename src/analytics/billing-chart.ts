/** The chart of the billing HTML: billed hours per period, one bar per kind. */
import { barChartSvg } from './bar-chart-svg.js';
import type { BillingRow } from './reports.js';

export function billingChart(rows: readonly BillingRow[], label: string): string {
  return barChartSvg(
    rows.map((row) => ({ period: row.period, series: row.kind, value: row.billed_hours })),
    { unit: 'billed hours', label },
  );
}
