/**
 * Rows a record turns into, counted straight from its JSON (not through the loader): the sizes the
 * bench divides by (words per second) and extrapolates with (the naive loader's subset).
 */
export interface RowCounts {
  jobs: number;
  utterances: number;
  words: number;
}

type Json = Record<string, unknown>;

function object(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function list(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Utterance lists of a record: the transcription, each translation entry, the diarization. */
export function utteranceLists(record: Json): (readonly unknown[])[] {
  const result = object(record['result']);
  if (!result) return [];
  const lists = [list(object(result['transcription'])?.['utterances'])];
  for (const entry of list(object(result['translation'])?.['results'])) {
    lists.push(list(object(entry)?.['utterances']));
  }
  lists.push(list(object(result['diarization'])?.['results']));
  return lists;
}

export function emptyCounts(): RowCounts {
  return { jobs: 0, utterances: 0, words: 0 };
}

/** Adds one record's rows to `into`. */
export function countRecord(record: unknown, into: RowCounts): void {
  const json = object(record);
  if (!json) return;
  into.jobs += 1;
  for (const utterances of utteranceLists(json)) {
    into.utterances += utterances.length;
    for (const utterance of utterances) into.words += list(object(utterance)?.['words']).length;
  }
}

export function totalRows(counts: RowCounts): number {
  return counts.jobs + counts.utterances + counts.words;
}
