/**
 * A simulated account without its HTTP server: the simulator's generated records and its data API
 * (add, advance, edit, delete), in-process, for engine tests that read them through a FakeListing
 * (./listing-fake.ts). Tests of the client or of what the service sees on the wire keep the
 * simulator over HTTP (startSimulator).
 */
import { Account } from '../../src/simulator/account.js';
import { JobStore } from '../../src/simulator/data.js';
import {
  accountSpec,
  GENERATE_DEFAULTS,
  type GenerateOptions,
  Rng,
  type SimulatorData,
} from '../../src/simulator/index.js';

/** The account `options` describe, as startSimulator's `data` holds it. */
export function accountData(options: GenerateOptions = {}): SimulatorData {
  const { spec, jobs } = accountSpec(options);
  return new JobStore(new Account(spec), {
    jobs,
    rng: new Rng((options.seed ?? GENERATE_DEFAULTS.seed) ^ 0xada),
    clock: Date.now,
    cacheBytes: 32 * 1024 * 1024,
  });
}
