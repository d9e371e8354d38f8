/**
 * The simulator in its own process (forked by bench/sim-process.ts), so that its CPU and memory
 * never count against the sync being measured. Serves the account the options in argv[2] (JSON)
 * describe (sim-service.ts) and answers the bench's commands over IPC.
 */
import { serveParent } from './ipc.js';
import { type SimChildOptions, startSimService } from './sim-service.js';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as SimChildOptions;
  const service = await startSimService(options);
  serveParent({
    ...service.handlers,
    close: async () => {
      await service.close();
      setImmediate(() => process.exit(0));
    },
  });
  process.send?.({ ready: true, url: service.url, apiKey: service.apiKey });
}

// The parent going away (a killed bench) must not leave a server behind.
process.on('disconnect', () => process.exit(0));
main().catch((error: unknown) => {
  process.stderr.write(
    `simulator child: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
