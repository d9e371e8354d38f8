/** Parses a size such as `8MiB`, `512KiB`, `1GiB`, `64MB` or a bare number of bytes; binary and decimal units. */
const UNIT_BYTES = {
  b: 1,
  kb: 1_000,
  mb: 1_000_000,
  gb: 1_000_000_000,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
} as const;

export function parseBytes(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]i?b|b)?\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = (match[2] ?? 'b').toLowerCase() as keyof typeof UNIT_BYTES;
  return Math.floor(Number(match[1]) * UNIT_BYTES[unit]);
}

/** `8.0 MiB`, `512 KiB`, `900 B`: for messages a person reads. */
export function formatBytes(bytes: number): string {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  if (bytes >= 2 ** 10) return `${Math.round(bytes / 2 ** 10)} KiB`;
  return `${bytes} B`;
}
