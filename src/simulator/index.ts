/** The simulator of the listing service: data generation, the HTTP server and its faults. */
export type { SimulatorData } from './data.js';
export { GENERATE_DEFAULTS, GROW_DEFAULTS } from './defaults.js';
export { accountSpec, generateDataset, newestFirst } from './records/generate.js';
export { Rng } from './rng.js';
export { type Simulator, startSimulator } from './server.js';
export type {
  FaultKind,
  FaultRequest,
  FaultRule,
  GenerateOptions,
  GrowOptions,
  JobRecord,
  RequestLogEntry,
  SimulatorOptions,
} from './types.js';
