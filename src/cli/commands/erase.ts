/** `transcript-sync erase`: a data-subject request answered (src/store/erase.ts). */
import { resolveAll, resolveFormat } from '../../config/resolve.js';
import type { Env, FlagValues } from '../../config/settings.js';
import { ConfigError } from '../../errors.js';
import { createLogger } from '../../log.js';
import { planMemory } from '../../memory/budget.js';
import {
  type Database,
  type ErasurePreview,
  type ErasureSelection,
  eraseJobs,
  openReadOnly,
  openWriter,
  previewErasure,
  rewriteErasedFile,
  selectForErasure,
  unwrittenErasures,
} from '../../store/index.js';
import { writeJson } from '../../util/json-writer.js';
import { assertFileExists } from '../../util/path-checks.js';
import { counted } from '../../util/plural.js';
import { type Command, type CommandContext, PROGRAM } from '../command.js';
import { withCommandLock } from '../lock-wait.js';

/** Ids shown per kind before erasing. */
const SHOWN_IDS = 5;

const SETTINGS = [
  'eraseJobs',
  'eraseMetadata',
  'eraseBefore',
  'eraseKeepMetadata',
  'yes',
  'format',
  'json',
  'db',
  'lockWait',
  'memory',
  'logLevel',
] as const;

export const command: Command = {
  name: 'erase',
  usage:
    'erase (--job ID ... | --metadata KEY=VALUE | --before DATE) [--erase-keep-metadata KEYS] [--format table|json | --json] --yes',
  description: [
    'Erases the content of the jobs selected (every selector given must match): the record as',
    'received, the transcript, utterances, words, module results, the file name and audio URL,',
    'request parameters but the model, and custom_metadata but the keys --erase-keep-metadata names.',
    'Each job keeps its billing facts (id, kind, status, times, durations, billing time, model,',
    'languages, error code), so reports give the same totals. A job known only by records that failed',
    'validation (`quarantine list`) is selected by them, their custom_metadata and created_at read',
    'from the record as received (a record where they cannot be read matches no --metadata or',
    "--before): its records go, and only its id (or a record's hash, when it has none) and kind stay,",
    'so that no sync quarantines it again. Then the file is rewritten, as `compact` does, so that the',
    'erased bytes are gone from it too (it needs free space for a copy).',
    'Without --yes it shows how many jobs of each kind it would erase, and a few ids, and stops.',
    "A later sync never loads an erased job's content again; a changed record updates its billing",
    'facts only (a job known only by the quarantine too, should a valid record of it come). The',
    'erasures table records when, how many and by which kind of',
    'selector; never the values selected by. Interrupted, every job keeps its content or none of it:',
    'run it again to finish. The next publish rewrites the partitions of the erased jobs.',
  ].join('\n'),
  logs: true,
  settings: SETTINGS,
  async run(context) {
    const request = selectionOf(context.flags, context.env);
    assertFileExists(request.settings.db, 'nothing to erase: the file does not exist');
    return request.settings.yes ? erase(context, request) : preview(context, request);
  },
};

type EraseRequest = ReturnType<typeof selectionOf>;

/** The settings and the selectors given (checked: at least one); `selector` names their kinds in `erasures`. */
function selectionOf(flags: FlagValues, env: Env) {
  const settings = resolveAll(SETTINGS, flags, env);
  const { eraseMetadata: metadata, eraseBefore: before } = settings;
  const ids = settings.eraseJobs?.length ? settings.eraseJobs : undefined;
  const given = Object.entries({ job: ids, metadata, before }).filter(([, value]) => value !== undefined);
  if (given.length === 0) {
    throw new ConfigError(
      'erase',
      `give the jobs to erase: --job ID, --metadata KEY=VALUE or --before DATE; see \`${PROGRAM} erase --help\``,
    );
  }
  const json = resolveFormat('format', flags, env) === 'json';
  const selection: ErasureSelection = { ids, metadata, before };
  return { settings, json, selection, selector: given.map(([kind]) => kind).join('+') };
}

/** Without --yes: what would be erased, then a refusal (exit 2) asking for --yes; exit 0 when nothing matches. */
async function preview({ stdout }: CommandContext, { settings, json, selection, selector }: EraseRequest) {
  const db = await openReadOnly(settings.db, { lockWaitMs: settings.lockWait, memory: settings.memory });
  const kinds = await selected(db, selection).finally(() => db.close());
  const total = sum(kinds, 'jobs');
  const text =
    total === 0 ? nothingLine(kinds, selector) : kinds.map((k) => kindLine(k, 'would erase')).join('\n');
  const outcome = { erased: 0, would_erase: total, kinds, rewritten: false };
  stdout.write(`${json ? writeJson(outcome) : text}\n`);
  if (total === 0) return 0;
  throw new ConfigError(
    '--yes',
    `erase would erase the content of ${counted(total, 'job')} (their billing facts stay); add --yes to confirm`,
  );
}

async function erase(
  { stdout, stderr }: CommandContext,
  { settings, json, selection, selector }: EraseRequest,
) {
  const logger = createLogger(settings.logLevel, {}, { stream: stderr });
  const lock = { db: settings.db, command: 'erase', waitMs: settings.lockWait, logger };
  return withCommandLock(stderr, lock, async () => {
    const db = await openWriter(settings.db, {
      lockWaitMs: settings.lockWait,
      logger,
      memory: planMemory(settings.memory, 1).duckdb,
      compactAfter: Number.POSITIVE_INFINITY,
    });
    let kinds: ErasurePreview[];
    let erased = 0;
    let unwritten = 0;
    try {
      kinds = await selected(db, selection);
      if (sum(kinds, 'jobs') > 0) {
        erased = await eraseJobs(db, { selection, selector, keep: settings.eraseKeepMetadata ?? [] });
      }
      unwritten = await unwrittenErasures(db);
    } finally {
      await db.close();
    }
    // Also when nothing new matched: an erasure interrupted before its rewrite is finished here.
    let rewritten = false;
    if (unwritten > 0) {
      logger.info({ db: settings.db, erased }, 'rewriting %s without the erased bytes', settings.db);
      const options = { memory: settings.memory, lockWaitMs: settings.lockWait, logger };
      rewritten = (await rewriteErasedFile(settings.db, options)) !== undefined;
    }
    const lines = erased === 0 ? [nothingLine(kinds, selector)] : kinds.map((k) => kindLine(k, 'erased'));
    if (rewritten) lines.push(`${settings.db}: rewritten without the erased bytes`);
    const outcome = { erased, kinds, rewritten };
    stdout.write(`${json ? writeJson(outcome) : lines.join('\n')}\n`);
    return 0;
  });
}

async function selected(db: Database, selection: ErasureSelection): Promise<ErasurePreview[]> {
  await selectForErasure(db, selection);
  return previewErasure(db, { shown: SHOWN_IDS });
}

function sum(kinds: readonly ErasurePreview[], field: 'jobs' | 'already'): number {
  return kinds.reduce((total, k) => total + k[field], 0);
}

function kindLine(kind: ErasurePreview, verb: string): string {
  const more = kind.jobs > kind.ids.length ? ', ...' : '';
  const shown = kind.jobs > 0 ? `: ${kind.ids.join(', ')}${more}` : '';
  const already = kind.already > 0 ? ` (${kind.already} erased before)` : '';
  return `${kind.kind}: ${verb} ${counted(kind.jobs, 'job')}${shown}${already}`;
}

function nothingLine(kinds: readonly ErasurePreview[], selector: string): string {
  const already = sum(kinds, 'already');
  return already > 0
    ? `${already === 1 ? 'the job' : `the ${already} jobs`} matching --${selector.replaceAll('+', ', --')} ${already === 1 ? 'is' : 'are'} erased already; nothing to erase`
    : `no job matches --${selector.replaceAll('+', ', --')}; nothing to erase`;
}
