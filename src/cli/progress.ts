/**
 * Live progress of a sync: on a terminal one line per kind redrawn in place on stderr, the run's log
 * lines printed above them (never overwritten nor splitting the block); elsewhere a structured log
 * line every few seconds.
 */
import type { JobKind } from '../kinds.js';
import { createLogger, type Logger, type TextSink } from '../log.js';
import type { SyncProgress } from '../sync/types.js';
import { formatDuration } from '../util/duration.js';

const LOG_EVERY_MS = 5_000;

export class ProgressView {
  private readonly latest = new Map<JobKind, SyncProgress>();
  private drawn = 0;
  private finished = false;
  private lastLog = 0;
  private logger!: Logger;

  /** A view on `stream` (stderr) and the logger of the run it shows, at `level`. */
  static open(stream: TextSink, level: string): { view: ProgressView; logger: Logger } {
    const view = new ProgressView(stream);
    const terminal: TextSink = { isTTY: true, write: (text: string) => view.printAbove(text) };
    view.logger = createLogger(level, {}, { stream: view.live ? terminal : stream });
    return { view, logger: view.logger };
  }

  private constructor(private readonly stream: TextSink) {}

  private get live(): boolean {
    return this.stream.isTTY === true;
  }

  update = (progress: SyncProgress): void => {
    this.latest.set(progress.kind, progress);
    if (this.live) {
      if (!this.finished) this.draw();
      return;
    }
    const now = Date.now();
    if (now - this.lastLog >= LOG_EVERY_MS) {
      this.lastLog = now;
      const { kind, pages, jobs, words, elapsed } = progress;
      this.logger.info({ kind, pages, jobs, words, elapsed_ms: elapsed }, 'progress');
    }
  };

  private draw(): void {
    const lines = [...this.latest.values()].map(describe);
    // Move up over what was drawn before, then redraw every kind's line.
    const up = this.drawn > 0 ? `\x1b[${this.drawn}F` : '';
    this.stream.write(`${up}${lines.map((l) => `\x1b[2K${l}`).join('\n')}\n`);
    this.drawn = lines.length;
  }

  /** A log line (ending in a newline) above the progress lines, which are then drawn again. */
  private printAbove(text: string): void {
    if (this.drawn === 0) {
      this.stream.write(text);
      return;
    }
    // Up to the block's first line, clear to the end of the screen, print, redraw below.
    this.stream.write(`\x1b[${this.drawn}F\x1b[J${text}`);
    this.drawn = 0;
    this.draw();
  }

  /** Leaves the last drawn lines on screen; the summary and later log lines go under them. */
  done(): void {
    this.drawn = 0;
    this.finished = true;
  }
}

function describe(p: SyncProgress): string {
  const seconds = Math.max(p.elapsed / 1_000, 0.001);
  const rate = Math.round(p.jobs / seconds);
  return `${p.kind.padEnd(12)} ${String(p.pages).padStart(6)} pages  ${String(p.jobs).padStart(8)} jobs  ${String(p.words).padStart(10)} words  ${String(rate).padStart(6)} jobs/s  ${formatDuration(p.elapsed)}`;
}
