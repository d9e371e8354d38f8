/**
 * The ids a `--full` walk saw (table `seen_ids`, which lives from the walk's start to its end), and
 * what they decide: jobs of the walked range the service no longer lists.
 */
import type { JobKind } from '../../kinds.js';
import type { Database } from '../database.js';
import { countOf, countsOf, only, queryText } from './queries.js';

/** Instants as ISO 8601 text; `after` null: the walk had no lower bound. */
type WalkedRange = { kind: JobKind; after: string | null; before: string };

/** An empty `seen_ids` (an interrupted walk's ids go). */
export const createSeenSet = (db: Database) => db.run(queryText('seen-create'));

export const dropSeenSet = (db: Database) => db.run(queryText('seen-drop'));

export const addSeenIds = (db: Database, params: { ids: readonly string[] }) =>
  db.run(queryText('seen-add'), only(params, 'ids'));

/** Jobs of the range created before `before` and not seen, and the range's stored jobs (neither deleted nor expired). */
export const countUnseen = (db: Database, params: WalkedRange) =>
  countsOf(
    db.all(queryText('seen-count-unseen'), only(params, 'kind', 'after', 'before')),
    'unseen',
    'stored',
  );

/**
 * Marks the kind's unseen jobs created before `before` (the retention's expiry line) expired at
 * `now`, of the walked range (from `after`) and below `horizon`; returns how many. Instants as ISO.
 */
export const markUnseenJobsExpired = (db: Database, params: WalkedRange & { horizon: string; now: string }) =>
  countOf(
    db.all(queryText('seen-mark-expired'), only(params, 'kind', 'after', 'before', 'horizon', 'now')),
    'Count',
  );

/** Marks the range's unseen jobs deleted at `now` (ISO); returns how many. */
export const markUnseenJobsDeleted = (db: Database, params: WalkedRange & { now: string }) =>
  countOf(db.all(queryText('seen-mark-deleted'), only(params, 'kind', 'after', 'before', 'now')), 'Count');
