/**
 * The price list of `report billing --prices FILE` and the worker's --report-prices: a JSON file
 * such as {"currency": "EUR", "per_hour": {"pre-recorded": 0.61, "live": 0.75},
 * "models": {"solaria-1": {"pre-recorded": 0.50}}}. A job costs its billed hours times the price of
 * its model and kind when `models` has one, else the price of its kind. Validated once here; a bad
 * file is a ConfigError naming the field (`per_hour.live`), never a report with a wrong cost.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from '../errors.js';
import { JOB_KINDS } from '../kinds.js';

/** Money per billed hour as the SQL takes it, DECIMAL(18,6): below 10^12, at most 6 decimals. */
const price = z
  .number()
  .nonnegative()
  .lt(1e12, 'a price is below 1000000000000')
  .refine((n) => Number.isFinite(n) && Math.abs(n * 1e6 - Math.round(n * 1e6)) < 1e-6, {
    message: 'a price has at most 6 decimals',
  });
const kindPrices = z.partialRecord(z.enum(JOB_KINDS), price);

const pricesSchema = z.strictObject({
  /** ISO 4217 code, shown beside every cost. */
  currency: z.string().regex(/^[A-Z]{3}$/, 'a 3-letter currency code such as EUR'),
  per_hour: kindPrices,
  models: z.record(z.string().min(1), kindPrices).optional(),
});
export type Prices = Readonly<z.infer<typeof pricesSchema>>;

/** Reads and validates a price file; `setting` is the flag that named it. */
export function loadPrices(path: string, setting: string): Prices {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const what = error instanceof SyntaxError ? `${path} is not JSON` : `cannot read ${path}`;
    throw new ConfigError(setting, `${what}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = pricesSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(file)';
    throw new ConfigError(`${setting} ${path}`, `${field}: ${issue?.message ?? 'invalid'}`, {
      hint: 'expected {"currency": "EUR", "per_hour": {"pre-recorded": 0.61, "live": 0.75}, "models": {"<model>": {"<kind>": 0.5}}}',
    });
  }
  return Object.freeze(parsed.data);
}
