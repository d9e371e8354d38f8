/**
 * The process entry of the program, called by bin/transcript-sync: the one place that binds the
 * program to this process (its argv, streams, environment and exit). Everything else takes them
 * from main's context. The bin hands in what src/ does not import: the worker's jobs (jobs/).
 */
import { DUCKDB_ALLOCATOR_CONF } from '../memory/budget.js';
import type { JobRegistry } from '../worker/job-definition.js';

export async function runProcess(wiring: { readonly jobs: () => Promise<JobRegistry> }): Promise<void> {
  // DuckDB's jemalloc reads it once, as DuckDB loads: the program is loaded only once this is set.
  process.env['DUCKDB_JE_MALLOC_CONF'] ??= DUCKDB_ALLOCATOR_CONF;
  // Else the AWS SDK (--publish s3://) prints a notice about Node versions among our stderr lines.
  process.env['AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED'] ??= 'true';
  const { main } = await import('./program.js');
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
