/**
 * Headless Chromium (Debian's `chromium`) driven over the DevTools protocol on a pipe
 * (--remote-debugging-pipe: JSON messages ended by NUL on fds 3 and 4), so a test can load a page
 * at a given viewport, measure it and take a screenshot without any npm dependency.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';

export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);

interface Message {
  id?: number;
  method?: string;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { message: string };
  params?: Record<string, unknown>;
}

export class HeadlessPage {
  private nextId = 1;
  private buffer = '';
  private readonly waiting = new Map<number, (m: Message) => void>();
  private readonly listeners: ((m: Message) => void)[] = [];

  private constructor(
    private readonly child: ChildProcess,
    private readonly profile: string,
    private sessionId = '',
  ) {
    const out = child.stdio[4] as Readable;
    out.setEncoding('utf8');
    out.on('data', (chunk: string) => this.receive(chunk));
  }

  /** A browser with one blank page of `width` x `height` CSS pixels. */
  static async open(width: number, height: number): Promise<HeadlessPage> {
    const profile = mkdtempSync(join(tmpdir(), 'tsync-chromium-'));
    const child = spawn(
      CHROMIUM,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--hide-scrollbars',
        `--user-data-dir=${profile}`,
        '--remote-debugging-pipe',
        'about:blank',
      ],
      { stdio: ['ignore', 'ignore', 'ignore', 'pipe', 'pipe'] },
    );
    const page = new HeadlessPage(child, profile);
    const { targetId } = (await page.send('Target.createTarget', { url: 'about:blank' })) as {
      targetId: string;
    };
    const { sessionId } = (await page.send('Target.attachToTarget', { targetId, flatten: true })) as {
      sessionId: string;
    };
    page.sessionId = sessionId;
    await page.send('Emulation.setDeviceMetricsOverride', {
      width,
      height,
      deviceScaleFactor: 1,
      mobile: false,
    });
    await page.send('Page.enable');
    return page;
  }

  async goto(url: string): Promise<void> {
    const loaded = this.event('Page.loadEventFired');
    await this.send('Page.navigate', { url });
    await loaded;
  }

  /** The value of a JS expression evaluated in the page (JSON-serialisable). */
  async evaluate<T>(expression: string): Promise<T> {
    const reply = (await this.send('Runtime.evaluate', { expression, returnByValue: true })) as {
      result: { value: T };
      exceptionDetails?: { text: string };
    };
    if (reply.exceptionDetails) throw new Error(`page script failed: ${reply.exceptionDetails.text}`);
    return reply.result.value;
  }

  /** A PNG of the viewport. */
  async screenshot(): Promise<Buffer> {
    const { data } = (await this.send('Page.captureScreenshot', { format: 'png' })) as { data: string };
    return Buffer.from(data, 'base64');
  }

  /**
   * Ends the browser through the protocol (Browser.close), so Chromium stops its helper processes
   * before it exits and leaves its profile alone; SIGTERM only if it does not answer within 5 s.
   */
  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    /** Until the browser exits, at most `ms`; the timer goes with it. */
    const exitWithin = async (ms: number) => {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    };
    (this.child.stdio[3] as Writable).write(
      `${JSON.stringify({ id: this.nextId++, method: 'Browser.close' })}\0`,
    );
    await exitWithin(5_000);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      this.child.kill('SIGTERM');
      await exitWithin(5_000);
    }
    // A profile left in the temp folder harms nothing: a removal that still fails must not fail the
    // test that rendered fine. Asynchronous, so the test file's worker is not blocked meanwhile.
    await rm(this.profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }).catch(() => {});
  }

  private send(method: string, params: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    const message = { id, method, params, ...(this.sessionId ? { sessionId: this.sessionId } : {}) };
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`chromium: no answer to ${method}`)), 20_000);
      this.waiting.set(id, (reply) => {
        clearTimeout(timer);
        if (reply.error) reject(new Error(`chromium: ${method}: ${reply.error.message}`));
        else resolve(reply.result ?? {});
      });
      (this.child.stdio[3] as Writable).write(`${JSON.stringify(message)}\0`);
    });
  }

  private event(method: string): Promise<Message> {
    return new Promise((resolve) => {
      const listener = (m: Message) => {
        if (m.method !== method) return;
        this.listeners.splice(this.listeners.indexOf(listener), 1);
        resolve(m);
      };
      this.listeners.push(listener);
    });
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    for (let end = this.buffer.indexOf('\0'); end >= 0; end = this.buffer.indexOf('\0')) {
      const message = JSON.parse(this.buffer.slice(0, end)) as Message;
      this.buffer = this.buffer.slice(end + 1);
      if (message.id !== undefined) this.waiting.get(message.id)?.(message);
      else for (const listener of [...this.listeners]) listener(message);
    }
  }
}
