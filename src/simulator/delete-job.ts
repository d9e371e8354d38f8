/**
 * `DELETE /v2/pre-recorded/{id}`, `/v2/live/{id}` and `/v2/transcription/{id}` (any kind), as the
 * service answers them once the key is accepted: 202 with no body, the job gone from the list; 404
 * when the list holds no such job (another kind's, already deleted, past the retention).
 */
import type { SimulatorData } from './data.js';
import { errorBody } from './envelope.js';
import { JOB_KINDS } from './types.js';

const JOB_PATH = /^\/v2\/(pre-recorded|live|transcription)\/([^/]+)$/;

export function isJobPath(path: string): boolean {
  return JOB_PATH.test(path);
}

export function deleteJob(
  data: SimulatorData,
  path: string,
): { readonly status: 202 | 404; readonly body: string } {
  const [, list = '', id = ''] = JOB_PATH.exec(path) ?? [];
  const kinds = list === 'transcription' ? JOB_KINDS : JOB_KINDS.filter((kind) => kind === list);
  if (data.deleteOf(decodeURIComponent(id), kinds)) return { status: 202, body: '' };
  const what = list === 'transcription' ? 'transcription' : list.replace('-', ' ');
  return { status: 404, body: errorBody(404, path, `The ${what} job doesn't exist or has been deleted`) };
}
