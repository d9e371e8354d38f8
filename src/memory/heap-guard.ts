/**
 * Keeps the V8 heap near its share of the budget (MemoryPlan.heapBytes): V8 collects its old generation
 * lazily and `--max-old-space-size` is fixed at start, so the sync asks for a full collection once the
 * heap passes its share, then lets it grow by half that again. `gc` comes from a fresh context after
 * `--expose-gc` is set at run time, so `node` needs no flag.
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
    // What survived is live: a live set close to the limit must not cost a collection per page.
    this.next = Math.max(this.limit, heldBytes() + this.limit / 2);
  }
}

/** Bytes of the V8 heap in use and of the ArrayBuffers its objects hold (page bodies). */
function heldBytes(): number {
  const stats = getHeapStatistics();
  return stats.used_heap_size + stats.external_memory;
}
