/** The simulator of the listing service: data generation, the HTTP server and its faults. */
export { type JobChange, JobChanges } from './changes.js';
export type { AddSpec, SimulatorData } from './data.js';
export { GENERATE_DEFAULTS, GROW_DEFAULTS, SERVER_DEFAULTS } from './defaults.js';
export type { FaultController } from './faults.js';
export {
  accountSpec,
  type GenerateOptions,
  generateDataset,
  newestFirst,
} from './records/generate.js';
export { generateJob } from './records/job.js';
export { Rng } from './rng.js';
export {
  type GrowOptions,
  type Simulator,
  type SimulatorOptions,
  startSimulator,
} from './server.js';
export {
  FAULT_KINDS,
  type FaultKind,
  type FaultPicker,
  type FaultRequest,
  type FaultRule,
  JOB_KINDS,
  JOB_STATUSES,
  type JobKind,
  type JobRecord,
  type JobSpec,
  type JobStatus,
  type RequestLogEntry,
} from './types.js';
export { startWebhookSender, type WebhookSender, type WebhookSource, webhookEvent } from './webhooks.js';
