/** What one kind's run works with: the run's plan and the resources runSync opened for it. */

import type { Listing } from '../extract/index.js';
import type { RecordLoader } from '../load/loader.js';
import type { Logger } from '../log.js';
import type { MemoryPlan } from '../memory/budget.js';
import type { HeapGuard } from '../memory/heap-guard.js';
import type { Database } from '../store/index.js';
import type { RetentionWatch } from './retention.js';
import type { CheckpointStore, SyncPlan, SyncProgress } from './types.js';

export interface KindRunContext {
  readonly db: Database;
  readonly loader: RecordLoader;
  readonly client: Listing;
  /** Stores to save into, each in its phase; the DuckDB one always, the chosen one when it is another. */
  readonly stores: readonly CheckpointStore[];
  readonly plan: SyncPlan;
  /** Page bytes, queue depth, batch and commit sizes, from the memory budget. */
  readonly memory: MemoryPlan;
  /** Asked between loads to keep the V8 heap within the budget. */
  readonly heap: HeapGuard;
  readonly runId: string;
  /** The run's start: every window's fixed `before_date`. */
  readonly startedAt: Date;
  /** The retention's edges as of `startedAt`, and the run's one warning of a setting too short. */
  readonly retention: RetentionWatch;
  readonly logger: Logger;
  readonly signal: AbortSignal;
  readonly onProgress?: ((progress: SyncProgress) => void) | undefined;
}
