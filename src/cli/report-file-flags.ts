/**
 * The worker's flags for its scheduled billing files (issue 16), kept in one place: which groups
 * and prices the files carry, how far back each run (re)writes periods, and the CSV's BOM. Staleness
 * is the worker's --stale-after: one notion of "this mirror has not synced for too long".
 */
import { type BillingFileSettings, DEFAULT_BILLING_FILE_SETTINGS } from '../analytics/billing-files.js';
import { parseGroupBy } from '../analytics/group-by.js';
import { loadPrices } from '../analytics/prices.js';
import type { FlagValues } from '../config/settings.js';
import type { JobKind } from '../kinds.js';
import { flag, type OptionSpec, stringFlag } from './command.js';
import { durationFlag } from './worker-flags.js';

const DEFAULT_WINDOW = '35d';

export const REPORT_FILE_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'report-group-by': {
    type: 'string',
    value: 'KEYS',
    help: 'groups of the billing files: kind, model, metadata.<key>, up to 3 comma-separated (default kind)',
  },
  'report-prices': {
    type: 'string',
    value: 'FILE',
    help: 'JSON price list for the billing files (adds cost; see report --help); read once at start',
  },
  'report-window': {
    type: 'string',
    value: 'DURATION',
    help: `each report run (re)writes every complete day and month this far back (default ${DEFAULT_WINDOW})`,
  },
  'report-bom': { type: 'boolean', help: 'billing CSV files start with a UTF-8 byte order mark (for Excel)' },
};

/**
 * Validated at start, so that a bad price file stops the worker before any run. A worker that syncs
 * one kind reports that kind only: the other would never have a successful sync to vouch for it.
 */
export function reportFileSettings(
  flags: FlagValues,
  options: { readonly staleAfterMs: number; readonly kinds: readonly JobKind[] },
): BillingFileSettings {
  const prices = stringFlag(flags, 'report-prices');
  return Object.freeze({
    ...DEFAULT_BILLING_FILE_SETTINGS,
    groupBy: parseGroupBy(stringFlag(flags, 'report-group-by'), '--report-group-by'),
    prices: prices === undefined ? undefined : loadPrices(prices, '--report-prices'),
    windowMs: durationFlag(flags, 'report-window', DEFAULT_WINDOW),
    staleAfterMs: options.staleAfterMs,
    bom: flag(flags, 'report-bom'),
    kind: options.kinds.length === 1 ? options.kinds[0] : undefined,
  });
}
