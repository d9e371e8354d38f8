/**
 * Parses a size such as `512MB`, `256MiB`, `1GB` or `1.5GiB` into bytes. kB/MB/GB are decimal
 * (10^3, 10^6, 10^9), KiB/MiB/GiB binary (2^10, 2^20, 2^30), as in the SI and IEC standards; a unit is
 * required, so `512` is not silently read as bytes or as megabytes.
 */
const UNIT_BYTES = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
} as const;

export function parseBytes(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([kmg]i?b|b)\s*$/i.exec(text);
  if (!match) return undefined;
  const unit = match[2]!.toLowerCase() as keyof typeof UNIT_BYTES;
  return Math.round(Number(match[1]) * UNIT_BYTES[unit]);
}
