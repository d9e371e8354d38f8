/**
 * A DuckDB file that cannot be read through: not a DuckDB file at all, cut short, or a block whose
 * checksum does not match (`IO Error: Corrupt database file: computed checksum ... in block at
 * location ...`). DuckDB says so at the open, or only when a statement reads the damaged block;
 * either way it is one error naming the file and the fix (exit 1).
 */
import { DatabaseError } from '../../errors.js';

const DAMAGED =
  /not a valid DuckDB database|could not read enough bytes|attempted to read \d+ bytes|Corrupt database file|checksum .* does not match/i;

/** The DatabaseError of a damaged `path` when `error` says the file is damaged, else undefined. */
export function damagedFileError(path: string, error: unknown): DatabaseError | undefined {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof DatabaseError || !DAMAGED.test(message)) return undefined;
  return new DatabaseError(`${path} is damaged or not a DuckDB database`, {
    path,
    hint: 'move it aside (keep it for inspection) and run a sync to rebuild it, or point --db at another file',
    cause: error,
  });
}
