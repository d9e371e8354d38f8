/**
 * Expiry is not deletion. The service keeps a job for the account's data retention
 * (`--service-retention`, 365 days by default) and then stops listing it; a user can also delete a
 * job. A `--full` run tells the two apart by the job's age against the retention edge, the run's
 * start minus the retention, blurred by RETENTION_MARGIN_MS either way (the service may drop a job a
 * little early or late, and its 12 months are not always 365 days):
 *
 * - the horizon (edge minus the margin): a `--full` walk starts there, never lower, since the service
 *   lists nothing older (reconcile.ts); a job listed older than it shows the setting is too
 *   short, which RetentionWatch says once per run;
 * - the expiry line (edge plus the margin): a stored job the run did not see and created before it
 *   is expired (`expired_at`, kept in every view and report), one created after it was deleted
 *   upstream (`deleted_at`, behind the deletion guard) (reconcile.ts).
 *
 * Why: docs/decisions/0020-expiry-is-not-deletion.md.
 */
import type { JobKind } from '../kinds.js';
import type { Logger } from '../log.js';
import { formatDurationSetting } from '../util/duration.js';

/** How far the service may drop a job before or after its retention ends: one day, ms. */
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
 * Watches the records a run loads for one created before the horizon: the service still lists it,
 * so its retention is longer than the setting. The run goes on (nothing is lost by it: the job is
 * loaded), and a warning says so once per run, whatever the number of kinds and pages.
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
