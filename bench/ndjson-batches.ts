/**
 * An NDJSON file cut into files of about a given size, whole lines each: floor A bounded's
 * transactions (bench/task-floor-a.ts). Read a block at a time, so the bench never holds the file.
 */
import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `path`'s lines into files of about `bytes` each under `dir` (made); their paths, in order. */
export function cutNdjson(path: string, dir: string, bytes: number): string[] {
  mkdirSync(dir, { recursive: true });
  const fd = openSync(path, 'r');
  const files: string[] = [];
  try {
    const size = fstatSync(fd).size;
    let carry = Buffer.alloc(0);
    for (let position = 0; position < size; ) {
      const block = Buffer.alloc(Math.min(bytes, size - position));
      position += readSync(fd, block, 0, block.length, position);
      const text = Buffer.concat([carry, block]);
      const end = position >= size ? text.length : text.lastIndexOf(10) + 1;
      const file = join(dir, `batch-${files.length}.ndjson`);
      writeFileSync(file, text.subarray(0, end));
      files.push(file);
      carry = Buffer.from(text.subarray(end));
    }
  } finally {
    closeSync(fd);
  }
  return files;
}
