/**
 * Reading docs/*.md as data for the tests that keep the pages true: the reference tables under a
 * page's `### \`name\`` headings (docs/schema.md), and the shell blocks marked runnable with a
 * `<!-- runnable -->` line right before their fence.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { projectRoot } from '../../src/util/paths.js';

export const DOCS_DIR = join(projectRoot(), 'docs');

export const RUNNABLE_MARKER = '<!-- runnable -->';

/** Every Markdown page below docs/, as paths relative to the project root, sorted. */
export function docPages(): string[] {
  return readdirSync(DOCS_DIR, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => relative(projectRoot(), join(DOCS_DIR, name)))
    .sort();
}

export function readDoc(page: string): string {
  return readFileSync(join(projectRoot(), page), 'utf8');
}

/** A Markdown table: its header cells and its rows' cells, trimmed. */
export interface MarkdownTable {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
}

/** The cells of a table line `| a | b |`; `\|` inside a cell is a literal bar. */
export function tableCells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replaceAll('\\|', '|'));
}

/** The first table in `lines`, from the first line that starts with `|`; undefined when none. */
export function firstTable(lines: readonly string[]): MarkdownTable | undefined {
  const start = lines.findIndex((line) => line.trimStart().startsWith('|'));
  if (start < 0) return undefined;
  const block: string[] = [];
  for (const line of lines.slice(start)) {
    if (!line.trimStart().startsWith('|')) break;
    block.push(line);
  }
  const [head, , ...body] = block;
  if (head === undefined) return undefined;
  return { header: tableCells(head), rows: body.map(tableCells) };
}

/** A `### ...` section: the heading's text and the lines up to the next heading of any level. */
export interface Section {
  readonly heading: string;
  readonly lines: readonly string[];
}

export function sections(text: string, level: number): Section[] {
  const found: Section[] = [];
  let current: { heading: string; lines: string[] } | undefined;
  const mark = `${'#'.repeat(level)} `;
  for (const line of text.split('\n')) {
    if (/^#{1,6} /.test(line)) {
      if (current) found.push(current);
      current = line.startsWith(mark) ? { heading: line.slice(mark.length).trim(), lines: [] } : undefined;
      continue;
    }
    current?.lines.push(line);
  }
  if (current) found.push(current);
  return found;
}

/** A fenced code block marked runnable: where it is and its text. */
export interface RunnableBlock {
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly language: string;
  readonly text: string;
}

/**
 * The blocks of `page` preceded by the runnable marker. A marker not followed by a fence on the
 * next line is an error, so that a typo cannot silently leave a block untested.
 */
export function runnableBlocks(page: string, text: string): RunnableBlock[] {
  const lines = text.split('\n');
  const blocks: RunnableBlock[] = [];
  lines.forEach((line, i) => {
    if (line.trim() !== RUNNABLE_MARKER) return;
    const fence = /^```(\w*)\s*$/.exec(lines[i + 1] ?? '');
    if (!fence) throw new Error(`${page}:${i + 1}: ${RUNNABLE_MARKER} must come right before a \`\`\` fence`);
    const end = lines.findIndex((l, j) => j > i + 1 && l.startsWith('```'));
    if (end < 0) throw new Error(`${page}:${i + 2}: the runnable block is never closed`);
    blocks.push({ page, line: i + 2, language: fence[1] ?? '', text: lines.slice(i + 2, end).join('\n') });
  });
  return blocks;
}
