/**
 * src/config owns every setting of every command: the one table below (flag, environment variable,
 * default written once, validation, help), how flags and an environment handed in resolve against
 * it (resolve.ts; never process.env itself), what `config show` lists (describe.ts), and a run's
 * settings as the sync takes them (sync-defaults.ts). It sits above the stages, whose types and
 * parsers it uses, and below the worker and the CLI.
 *
 * The table in four parts, by who reads them: a run's, the worker's, one command line's, the simulator's.
 */
import type { z } from 'zod';
import { COMMAND_SETTINGS } from './command-settings.js';
import { RUN_SETTINGS } from './run-settings.js';
import type { Setting } from './setting.js';
import { SIMULATOR_SETTINGS } from './simulator-settings.js';
import { WORKER_SETTINGS } from './worker-settings.js';

export const SETTINGS = Object.freeze({
  ...RUN_SETTINGS,
  ...WORKER_SETTINGS,
  ...COMMAND_SETTINGS,
  ...SIMULATOR_SETTINGS,
});

/** The parts, for the test that no name is in two of them. */
export const SETTING_PARTS = [RUN_SETTINGS, WORKER_SETTINGS, COMMAND_SETTINGS, SIMULATOR_SETTINGS];

export type SettingName = keyof typeof SETTINGS;
export type SettingValue<K extends SettingName> = z.output<(typeof SETTINGS)[K]['schema']>;
export type Settings<K extends SettingName> = { readonly [P in K]: SettingValue<P> };

/** The row of a setting, as the Setting it is (the table's literal types widened). */
export function settingOf(name: SettingName): Setting {
  return SETTINGS[name];
}

/** The names of a part of the table (or the whole), in its order. */
export const namesOf = <T extends Readonly<Record<string, Setting>>>(part: T) =>
  Object.keys(part) as (keyof T)[];

/** Settings with an environment variable: what configures a process, and what `config show` lists. */
export const CONFIGURATION: readonly SettingName[] = namesOf(SETTINGS).filter(
  (name) => settingOf(name).env !== undefined,
);

export type Env = Readonly<Record<string, string | undefined>>;
export type FlagValues = Readonly<Record<string, string | boolean | string[] | undefined>>;
