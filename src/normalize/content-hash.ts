/** The identity of a record's content: sha1 of its JSON text (the text stored as `raw`), in hex. */
import { createHash } from 'node:crypto';

export function contentHash(raw: string): string {
  return createHash('sha1').update(raw).digest('hex');
}
