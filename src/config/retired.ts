/**
 * Names a configuration may still hold that are no setting of transcript-sync. In the environment
 * (an env file shared by several processes) each is ignored with a warning, so a deployment keeps
 * running; typed as a flag it is a usage error (exit 2) that says why.
 */
import type { Env } from './settings.js';

/** Each with the commands that took it (they warn when its variable is set) and why it is gone. */
const RETIRED_SETTINGS: readonly { flag: string; env: string; commands: readonly string[]; why: string }[] = [
  {
    flag: 'metadata-encoding',
    env: 'TSYNC_METADATA_ENCODING',
    commands: ['sync', 'worker', 'config'],
    why: 'a sync mirrors every job and sends the service no custom_metadata filter; filter on jobs.custom_metadata in SQL instead',
  },
];

/** One warning per retired variable set in `env`, for `command`. */
export function retiredWarnings(command: string, env: Env): string[] {
  return RETIRED_SETTINGS.filter((r) => r.commands.includes(command) && (env[r.env] ?? '') !== '').map(
    (r) => `${r.env} is ignored: ${r.why}; remove it from the environment`,
  );
}

/** The refusal of `--flag`, saying why, when it names a retired setting. */
export function retiredFlag(flag: string): string | undefined {
  const retired = RETIRED_SETTINGS.find((r) => `--${r.flag}` === flag);
  return retired && `unknown flag ${flag}: ${retired.why}`;
}
