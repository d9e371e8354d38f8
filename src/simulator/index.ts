/** The simulator of the listing service: data generation, the HTTP server and its faults. */
export type { AddSpec, SimulatorData } from './data.js';
export { GENERATE_DEFAULTS, GROW_DEFAULTS, SERVER_DEFAULTS } from './defaults.js';
export type { FaultController } from './faults.js';
export { type JobChange, JobChanges } from './growth.js';
export { accountSpec, generateDataset, newestFirst } from './records/generate.js';
export { generateJob } from './records/job.js';
export { Rng } from './rng.js';
export { type Simulator, startSimulator } from './server.js';
export {
  FAULT_KINDS,
  type FaultKind,
  type FaultPicker,
  type FaultRequest,
  type FaultRule,
  type GenerateOptions,
  type GrowOptions,
  JOB_KINDS,
  JOB_STATUSES,
  type JobKind,
  type JobRecord,
  type JobSpec,
  type JobStatus,
  type RequestLogEntry,
  type SimulatorOptions,
} from './types.js';
export { startWebhookSender, type WebhookSender, type WebhookSource, webhookEvent } from './webhooks.js';
