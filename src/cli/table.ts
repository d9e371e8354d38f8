/** A plain text table for terminals: left-aligned text, right-aligned numbers. */
export function renderTable(rows: readonly Record<string, unknown>[]): string {
  const first = rows[0];
  if (!first) return '(no rows)\n';
  const columns = Object.keys(first);
  const cells = rows.map((row) => columns.map((c) => cellText(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const numeric = columns.map((c) =>
    rows.every((row) => row[c] === null || typeof row[c] === 'number' || typeof row[c] === 'bigint'),
  );
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n') + '\n';
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : value.toFixed(2);
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}
