/**
 * Live progress of a sync: on a terminal one line per kind redrawn in place on stderr; elsewhere
 * (cron, CI, a pipe) a structured log line every few seconds.
 */
import type { Logger } from '../log.js';
import type { SyncKind, SyncProgress } from '../sync/types.js';
import { formatDuration } from '../util/duration.js';

const LOG_EVERY_MS = 5_000;

export class ProgressView {
  private readonly latest = new Map<SyncKind, SyncProgress>();
  private drawn = 0;
  private lastLog = 0;

  constructor(
    private readonly stream: NodeJS.WriteStream,
    private readonly logger: Logger,
  ) {}

  private get live(): boolean {
    return this.stream.isTTY === true;
  }

  update = (progress: SyncProgress): void => {
    this.latest.set(progress.kind, progress);
    if (this.live) {
      this.draw();
      return;
    }
    const now = Date.now();
    if (now - this.lastLog >= LOG_EVERY_MS) {
      this.lastLog = now;
      this.logger.info({ ...progress }, 'progress');
    }
  };

  private draw(): void {
    const lines = [...this.latest.values()].map(describe);
    // Move up over what was drawn before, then redraw every kind's line.
    const up = this.drawn > 0 ? `\x1b[${this.drawn}F` : '';
    this.stream.write(`${up}${lines.map((l) => `\x1b[2K${l}`).join('\n')}\n`);
    this.drawn = lines.length;
  }

  /** Leaves the last drawn lines on screen; the summary goes under them. */
  done(): void {
    this.drawn = 0;
  }
}

function describe(p: SyncProgress): string {
  const seconds = Math.max(p.elapsed / 1_000, 0.001);
  const rate = Math.round(p.jobs / seconds);
  return `${p.kind.padEnd(12)} ${String(p.pages).padStart(6)} pages  ${String(p.jobs).padStart(8)} jobs  ${String(p.words).padStart(10)} words  ${String(rate).padStart(6)} jobs/s  ${formatDuration(p.elapsed)}`;
}
