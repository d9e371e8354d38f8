/**
 * Keeps the V8 heap near what the memory budget gives it (MemoryPlan.heapBytes, src/memory/budget.ts:
 * 66 MiB at the default 512 MB). V8 collects its old generation lazily: a back-fill's page bodies and
 * record texts die within a second of being handed to DuckDB, yet V8 lets the heap grow to several
 * times its live set (BENCHMARKS.md, "Memory budget"). Its limit (`--max-old-space-size`) can only
 * be set when the process starts, so the sync asks for a full collection itself once the heap holds
 * more than its share of the budget, and then lets it grow by half that share again.
 *
 * `gc` is V8's own function, exposed at run time with `--expose-gc` and taken from a fresh context,
 * so no flag has to be given to `node` (Node warns that flags set after start may misbehave; this
 * one only adds the function, and the bench and the whole test suite run with it).
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

function gcFunction(): () => void {
  if (collect === undefined) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  return collect;
}

export class HeapGuard {
  /** Heap bytes at which the next collection is asked for. */
  private next: number;

  /** `limit`: heap bytes the budget gives the pages in flight and everything else in V8. */
  constructor(private readonly limit: number) {
    this.next = limit;
  }

  /** Cheap (reads V8's counters); collects when the heap passed its mark. Call between pages. */
  check(): void {
    if (heldBytes() < this.next) return;
    gcFunction()();
    // What survived is live; let the heap grow by half the limit beyond it before asking again,
    // so a live set close to the limit does not cost a collection per page.
    this.next = Math.max(this.limit, heldBytes() + this.limit / 2);
  }
}

/**
 * The V8 heap in use and the memory its objects hold outside it (ArrayBuffers: page bodies as
 * received), which only a collection of their small owners frees, in bytes.
 */
function heldBytes(): number {
  const stats = getHeapStatistics();
  return stats.used_heap_size + stats.external_memory;
}
