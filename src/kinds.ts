/** The service's kinds, statuses and list names (spec 2.2), defined once: every union derives from them. */

/** The kinds of job the service runs; a sync mirrors each on its own list. */
export const JOB_KINDS = ['pre-recorded', 'live'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

export const JOB_STATUSES = ['queued', 'processing', 'done', 'error'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

/** The list operations, by the last segment of their path (`/v2/<name>`): one per kind, and both. */
export const LIST_NAMES = [...JOB_KINDS, 'transcription'] as const;
export type ListName = (typeof LIST_NAMES)[number];

/** The one kind of a selection (`--kind live`), or undefined when it holds both (`--kind all`). */
export function onlyKind(kinds: readonly JobKind[]): JobKind | undefined {
  return kinds.length === 1 ? kinds[0] : undefined;
}
