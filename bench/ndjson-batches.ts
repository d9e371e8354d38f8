/**
 * An NDJSON file cut into files of a given number of lines (jobs): floor A bounded's transactions
 * (bench/task-floor-a.ts). Read a block at a time, so the bench never holds the file.
 */
import { closeSync, mkdirSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Bytes read at a time. */
const BLOCK_BYTES = 4 * 2 ** 20;

/** Writes `path`'s lines into files of `lines` lines each (the last fewer) under `dir` (made); their paths, in order. */
export function cutNdjson(path: string, dir: string, lines: number): string[] {
  mkdirSync(dir, { recursive: true });
  const fd = openSync(path, 'r');
  const files: string[] = [];
  let parts: Buffer[] = [];
  let count = 0;
  const flush = () => {
    if (parts.length === 0) return;
    const file = join(dir, `batch-${files.length}.ndjson`);
    writeFileSync(file, Buffer.concat(parts));
    files.push(file);
    parts = [];
    count = 0;
  };
  try {
    const block = Buffer.alloc(BLOCK_BYTES);
    for (let read = readSync(fd, block); read > 0; read = readSync(fd, block)) {
      let start = 0;
      for (let nl = block.indexOf(10, start); nl !== -1 && nl < read; nl = block.indexOf(10, start)) {
        parts.push(Buffer.from(block.subarray(start, nl + 1)));
        start = nl + 1;
        if (++count === lines) flush();
      }
      if (start < read) parts.push(Buffer.from(block.subarray(start, read)));
    }
    flush();
  } finally {
    closeSync(fd);
  }
  return files;
}
