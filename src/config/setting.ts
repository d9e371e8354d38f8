/** What one row of the settings table (settings.ts) says about a setting. */
import type { z } from 'zod';

export interface Setting {
  /** Flag without dashes; absent for a secret, which a flag would show in `ps`. */
  readonly flag?: string;
  /** One-letter alias of the flag (`-f`). */
  readonly short?: string;
  /** Environment variable: a setting with one configures the process (`config show` lists it). */
  readonly env?: string;
  /** A switch (`--full`) takes no value; its environment variable says true or false. */
  readonly switch?: true;
  /** May be given more than once (`--read A --read B`); the schema gets the list. */
  readonly multiple?: true;
  /** The value's placeholder in --help (`--db PATH`); VALUE when absent. */
  readonly value?: string;
  /** Turns the text (a switch's `true`, a repeated flag's list) into the typed value. */
  readonly schema: z.ZodType;
  /** The default as text, parsed by the schema like any other value. */
  readonly default?: string;
  readonly help: string;
  /** Never shown or echoed: `config show` says only whether it is set. */
  readonly secret?: true;
}
