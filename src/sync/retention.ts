/**
 * Expiry is not deletion (docs/decisions/0020-expiry-is-not-deletion.md). The service stops listing
 * a job once the account's retention (`--service-retention`) ends, or when a user deletes it. A
 * `--full` run tells the two apart by the job's age against the retention edge, the run's start
 * minus the retention, blurred by RETENTION_MARGIN_MS either way (the service may drop a job a little
 * early or late). The horizon (edge minus the margin) is where a `--full` walk starts; below the
 * expiry line (edge plus the margin) an unseen stored job is expired, above it deleted (reconcile.ts).
 */
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import { formatDurationSetting } from '../util/duration.js';

/** ms the service may drop a job before or after its retention ends. */
const RETENTION_MARGIN_MS = 86_400_000;

export interface RetentionEdges {
  /** Nothing older is listed by a service whose retention is the setting; a walk starts here. */
  readonly horizon: Date;
  /** A job not listed any more and created before this instant is expired; after it, deleted. */
  readonly expiredBefore: Date;
}

/** The edges of a run started at `now` for a retention of `retentionMs`. */
export function retentionEdges(now: Date, retentionMs: number): RetentionEdges {
  const edge = now.getTime() - retentionMs;
  return {
    horizon: new Date(edge - RETENTION_MARGIN_MS),
    expiredBefore: new Date(edge + RETENTION_MARGIN_MS),
  };
}

/**
 * Watches the records a run loads for one created before the horizon: the service's retention is
 * longer than the setting. The run goes on, and a warning says so once per run.
 */
export class RetentionWatch {
  #warned = false;

  constructor(
    readonly edges: RetentionEdges,
    private readonly retentionMs: number,
    private readonly logger: Logger,
  ) {}

  /** `jobs`: the valid records of a batch (a quarantined one has no trusted created_at). */
  check(kind: JobKind, jobs: readonly { readonly createdAt: string }[]): void {
    if (this.#warned) return;
    const old = jobs.find((job) => Date.parse(job.createdAt) < this.edges.horizon.getTime());
    if (old === undefined) return;
    this.#warned = true;
    const setting = formatDurationSetting(this.retentionMs);
    this.logger.warn(
      { kind, created_at: old.createdAt, horizon: this.edges.horizon.toISOString() },
      "the service lists a %s job created %s, older than --service-retention %s (and a day) allows: the setting is shorter than the account keeps jobs; set it to the account's retention, or a --full run counts the jobs deleted upstream below it as expired and keeps them",
      kind,
      old.createdAt,
      setting,
    );
  }
}
