/** What `demo` shows of the file it synced. */
import type { RowSource } from '../database.js';
import { queryText } from './queries.js';

export type DemoStatusRow = { readonly kind: string; readonly status: string; readonly jobs: number };
export type DemoHoursRow = {
  readonly kind: string;
  readonly jobs: number;
  readonly audio_hours: number | null;
  readonly billed_hours: number | null;
};
export type DemoJobRow = {
  readonly kind: string;
  readonly id: string;
  readonly status: string;
  readonly created_utc: string;
  readonly billed_minutes: number | null;
  readonly transcript: string;
};

/** Jobs per kind and status, not deleted. */
export const demoJobsByStatus = (db: RowSource) => db.all<DemoStatusRow>(queryText('demo-by-status'));

/** Per kind, hours of audio and of billing time of the done jobs, to 2 decimals. */
export const demoHours = (db: RowSource) => db.all<DemoHoursRow>(queryText('demo-hours'));

/** The three newest jobs of each kind. */
export const demoLatestJobs = (db: RowSource) => db.all<DemoJobRow>(queryText('demo-latest'));
