/**
 * The worker's billing report files as analytics takes them: the `--report-*` settings, staleness
 * from `--stale-after`, and the kind the worker syncs when it syncs one (the other never has a
 * successful sync to vouch for it). With no flag and no environment: the defaults, for tests.
 */
import type { BillingFileSettings } from '../analytics/billing-files.js';
import { onlyKind } from '../kinds.js';
import { resolveAll } from './resolve.js';
import type { Env, FlagValues } from './settings.js';

export function billingFileSettings(flags: FlagValues = {}, env: Env = {}): BillingFileSettings {
  const settings = resolveAll(
    ['kind', 'reportGroupBy', 'reportWindow', 'staleAfter', 'reportBom', 'reportPrices'],
    flags,
    env,
  );
  return Object.freeze({
    groupBy: settings.reportGroupBy,
    prices: settings.reportPrices,
    windowMs: settings.reportWindow,
    staleAfterMs: settings.staleAfter,
    bom: settings.reportBom,
    kind: onlyKind(settings.kind),
  });
}
