/**
 * The process entry of the program, called by bin/transcript-sync: the one place that binds the
 * program to this process (its argv, streams, environment and exit). Everything else takes them
 * from main's context. The bin hands in what src/ does not import: the worker's jobs (jobs/).
 */
import type { JobRegistry } from '../worker/job-definition.js';
import { main } from './program.js';

export async function runProcess(wiring: { readonly jobs: () => Promise<JobRegistry> }): Promise<void> {
  const code = await main(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    stdin: process.stdin,
    exit: (now) => process.exit(now),
    jobs: wiring.jobs,
  });
  process.exitCode = code;
  // Every command closes what it opened; should a stray handle remain, do not hang the shell on it.
  setTimeout(() => process.exit(code), 2_000).unref();
}
