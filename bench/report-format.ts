/** What the report's parts share: a target and the formats of its figures. */

export interface Target {
  readonly name: string;
  readonly goal: string;
  readonly value: string;
  readonly met: boolean;
}

/** A [label, value] row of the printout. */
export type Row = [string, string];

export const seconds = (ms: number) => `${(ms / 1_000).toFixed(2)} s`;
export const perSecond = (n: number) =>
  n >= 1e6 ? `${(n / 1e6).toFixed(2)}M/s` : `${(n / 1e3).toFixed(0)}k/s`;
export const times = (ratio: number) => `${ratio.toFixed(2)}x`;
/** Decimal megabytes, as the budget and the disk figures are given. */
export const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
export const mib = (value: number) => `${value.toFixed(0)} MiB`;
export const microsPerWord = (cpuMs: number, words: number) =>
  `${((cpuMs * 1_000) / words).toFixed(2)} µs CPU a word`;

/** A memory bound in bytes as the report shows it: MiB (the figures' unit) and the bound as given. */
export const bound = (bytes: number, what: string) => `<= ${mib(bytes / 2 ** 20)} (${what})`;

/** The goal of every peak RSS target: the sync's memory budget, bytes. */
export const budgetName = (bytes: number) => `the ${(bytes / 1e6).toFixed(0)} MB budget`;

/** Markdown table lines. */
export function markdown(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}
