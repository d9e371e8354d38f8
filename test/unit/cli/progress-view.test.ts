/**
 * On a terminal, progress lines are redrawn in place while the run logs: a log line must end up on
 * screen whole, above the progress block, and never be overwritten by the next redraw (raw JSON lines
 * must not mix with the progress display).
 */
import { describe, expect, it } from 'vitest';
import { ProgressView } from '../../../src/cli/progress.js';

const ESC = String.fromCharCode(27);

/** The screen a terminal shows for what was written: the escapes ProgressView uses, and text. */
class Screen {
  readonly isTTY = true;
  private rows: string[] = [''];
  private row = 0;

  write(text: string): boolean {
    const parts = text.split(new RegExp(`(${ESC}\\[\\d*[FJK])`));
    for (const part of parts) {
      const code = new RegExp(`^${ESC}\\[(\\d*)([FJK])$`).exec(part);
      if (code) this.apply(Number(code[1] || 1), code[2] as 'F' | 'J' | 'K');
      else this.print(part);
    }
    return true;
  }

  lines(): string[] {
    return this.rows.filter((line, i) => line !== '' || i < this.rows.length - 1);
  }

  private apply(n: number, code: 'F' | 'J' | 'K'): void {
    if (code === 'F') this.row = Math.max(0, this.row - n);
    if (code === 'J') this.rows = [...this.rows.slice(0, this.row), ''];
    if (code === 'K') this.rows[this.row] = '';
  }

  private print(text: string): void {
    for (const [i, piece] of text.split('\n').entries()) {
      if (i > 0) {
        this.row++;
        if (this.row >= this.rows.length) this.rows.push('');
      }
      this.rows[this.row] = (this.rows[this.row] ?? '') + piece;
    }
  }
}

const progress = (kind: 'pre-recorded' | 'live', pages: number) => ({
  kind,
  pages,
  jobs: pages * 10,
  words: pages * 1_000,
  elapsed: 1_000,
});

describe('progress on a terminal', () => {
  it('prints log lines whole above the progress lines, which stay one per kind at the bottom', () => {
    const screen = new Screen();
    const { view, logger } = ProgressView.open(screen, 'info');
    view.update(progress('pre-recorded', 1));
    view.update(progress('live', 1));
    logger.warn('first warning');
    view.update(progress('pre-recorded', 2));
    logger.info('an info line');
    view.update(progress('live', 3));
    view.done();
    logger.info('after the run');

    const lines = screen.lines();
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/WARN.*first warning/);
    expect(lines[1]).toMatch(/INFO.*an info line/);
    expect(lines[2]).toMatch(/^pre-recorded\s+2 pages/);
    expect(lines[3]).toMatch(/^live\s+3 pages/);
    expect(lines[4]).toMatch(/INFO.*after the run/);
  });
});
