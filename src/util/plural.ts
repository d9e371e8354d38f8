/** A count with its noun, singular for one: `1 page`, `2 pages`, `0 retries` (`plural` when not noun + s). */
export function counted(count: number | bigint, noun: string, plural = `${noun}s`): string {
  return `${count} ${count === 1 || count === 1n ? noun : plural}`;
}
