/**
 * One publish of a synced file, as `sync --publish` runs it after its kinds (the writer open, the
 * memory of a reading that writes Parquet), in a process of its own so that /usr/bin/time measures
 * the publish alone. Prints the PublishResult as one JSON line.
 *
 *   node dist/bench/publish-child.js DB TARGET [ENDPOINT]
 *
 * TARGET: a folder or s3://BUCKET/PREFIX; credentials and region from the AWS SDK's environment.
 */
import { basename, dirname, join } from 'node:path';
import { publishDataset } from '../src/analytics/publish/publish.js';
import { DEFAULT_MEMORY } from '../src/memory/budget.js';
import { planReaderMemory } from '../src/memory/reader-memory.js';
import { withReadingMemory } from '../src/store/index.js';
import { openWriter } from '../src/store/open-file.js';

async function main(): Promise<void> {
  const [db, target, endpoint] = process.argv.slice(2);
  if (!db || !target) throw new Error('usage: publish-child.js DB TARGET [ENDPOINT]');
  const database = await openWriter(db);
  try {
    const reading = planReaderMemory(DEFAULT_MEMORY, db, { writesParquet: true });
    const result = await withReadingMemory(database, reading, () =>
      publishDataset({
        db: database,
        dir: target,
        ...(endpoint ? { endpoint } : {}),
        staging: join(dirname(db), `.${basename(db)}.publish`),
      }),
    );
    process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await database.close();
  }
}

await main();
