/** The lock file beside a DuckDB file that keeps it to one writer, whatever Redis prefix is used. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { main } from '../../../src/cli/program.js';
import { DatabaseError } from '../../../src/errors.js';
import { startSimulator } from '../../../src/simulator/index.js';
import {
  acquireWriterLock,
  type WriterLockOptions,
  waitForWriterLock,
  waitingMarkerPath,
  writerLockPath,
} from '../../../src/store/file/writer-lock.js';
import { runMain } from '../../helpers/cli.js';
import { copyMigrated } from '../../helpers/migrated-db.js';
import { tempDir } from '../../helpers/tmp.js';
import { onCleanup } from '../../helpers/worker.js';

function setup() {
  const db = join(tempDir(), 'transcripts.duckdb');
  const lost: string[] = [];
  const acquire = (more: Partial<WriterLockOptions> = {}) => {
    const lock = acquireWriterLock({ db, command: 'sync', onLost: (r) => lost.push(r), ...more });
    onCleanup(async () => lock.release());
    return lock;
  };
  return { db, lost, acquire, path: writerLockPath(db) };
}

function holder(pid: number, host: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    token: 'other',
    pid,
    host,
    command: 'worker',
    since: '2026-01-01T00:00:00.000Z',
    start_ticks: null,
    ...extra,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A terminal's stream: keeps what is written, and calls `onWrite` after each write. */
class TerminalSink extends Writable {
  readonly isTTY = true;
  text = '';
  constructor(private readonly onWrite: () => void) {
    super();
  }
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    this.onWrite();
    done();
  }
}

describe('database writer lock file', () => {
  it('refuses a second holder of the same file, naming the file, the holder pid and the fix', () => {
    const { acquire, db, path } = setup();
    const first = acquire();
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({
      pid: process.pid,
      host: hostname(),
      command: 'sync',
    });
    expect(() => acquire()).toThrow(DatabaseError);
    expect(() => acquire()).toThrow(
      `${db} is being written by pid ${process.pid} (transcript-sync sync) on host ${hostname()}`,
    );
    const error = (() => {
      try {
        acquire();
      } catch (thrown) {
        return thrown as DatabaseError;
      }
    })();
    expect(error?.toLine()).toMatch(
      /; stop that process or wait for it to finish, or point --db at another file/,
    );
    first.release();
    expect(existsSync(path)).toBe(false);
  });

  it('refuses while another live process holds it, and takes it once that process is gone', async () => {
    const { acquire, path } = setup();
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    const exited = new Promise((r) => other.once('exit', r));
    onCleanup(async () => {
      other.kill('SIGKILL');
      await exited;
    });
    const ticks = Number(readFileSync(`/proc/${other.pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19]);
    writeFileSync(path, holder(other.pid ?? 0, hostname(), { start_ticks: ticks }));
    expect(() => acquire()).toThrow(`pid ${other.pid} (transcript-sync worker)`);
    other.kill('SIGKILL');
    await exited;
    const lock = acquire();
    expect(JSON.parse(readFileSync(path, 'utf8')).token).toBe(lock.holder.token);
  });

  it('takes over a lock whose pid now belongs to another process (a restarted container reuses pids)', () => {
    const { acquire, path } = setup();
    // Our own pid alive, but recorded with another start time: a past life of this pid.
    writeFileSync(path, holder(process.pid, hostname(), { start_ticks: 1 }));
    expect(acquire().holder.pid).toBe(process.pid);
  });

  it('takes over at once the lock of a dead process on this host', () => {
    const { acquire, path } = setup();
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    writeFileSync(path, holder(dead, hostname()));
    const lock = acquire();
    expect(JSON.parse(readFileSync(path, 'utf8')).token).toBe(lock.holder.token);
  });

  it('a holder on another host counts while it refreshes the file, and is stale once it stops', () => {
    const { acquire, path } = setup();
    writeFileSync(path, holder(1234, 'elsewhere'));
    expect(() => acquire({ staleAfterMs: 30_000 })).toThrow(
      /pid 1234 \(transcript-sync worker\) on host elsewhere/,
    );
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    expect(acquire({ staleAfterMs: 30_000 }).holder.host).toBe(hostname());
  });

  it('the heartbeat refreshes the file, and reports a lock removed or taken by someone else', async () => {
    const { acquire, path, lost } = setup();
    acquire({ heartbeatMs: 50 });
    const old = new Date(Date.now() - 60_000);
    utimesSync(path, old, old);
    await sleep(200);
    expect(Date.now() - (await import('node:fs')).statSync(path).mtimeMs).toBeLessThan(5_000);
    expect(lost).toEqual([]);
    writeFileSync(path, holder(1, 'thief'));
    for (let i = 0; i < 40 && lost.length === 0; i += 1) await sleep(50);
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/removed or taken by another process/);
  });

  it('waits up to the wait given for a held lock, saying so once, and takes it when released', async () => {
    const { acquire, db, path } = setup();
    const first = acquire();
    const told: string[] = [];
    setTimeout(() => first.release(), 300);
    const started = Date.now();
    const second = await waitForWriterLock({
      db,
      command: 'sync',
      waitMs: 10_000,
      onWait: (h) => told.push(h),
    });
    onCleanup(async () => second.release());
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(JSON.parse(readFileSync(path, 'utf8')).token).toBe(second.holder.token);
    expect(told).toEqual([
      `${db} is being written by pid ${process.pid} (transcript-sync sync) on host ${hostname()}, since ${first.holder.since}`,
    ]);
  });

  it('refuses at once with no wait, and after the wait while the holder stays, saying how long it waited', async () => {
    const { acquire, db } = setup();
    acquire();
    const told: string[] = [];
    const onWait = (h: string) => told.push(h);
    const at_once = await waitForWriterLock({ db, command: 'sync', waitMs: 0, onWait }).catch(
      (e: unknown) => e,
    );
    expect(at_once).toBeInstanceOf(DatabaseError);
    expect((at_once as DatabaseError).message).not.toContain('waited');
    expect(told).toEqual([]);
    const started = Date.now();
    const after = await waitForWriterLock({ db, command: 'sync', waitMs: 400, onWait }).catch(
      (e: unknown) => e,
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(after).toMatchObject({ busy: true, retryable: true });
    expect((after as DatabaseError).toLine()).toMatch(
      /is being written by pid \d+ .* \(waited 400ms, --lock-wait\); stop that process/,
    );
    expect(told).toHaveLength(1);
  });

  it('a waiting writer announces itself while it waits, and a worker lets it go first', async () => {
    const { acquire, db } = setup();
    const marker = waitingMarkerPath(db);
    const first = acquire();
    const waiter = waitForWriterLock({ db, command: 'sync', waitMs: 10_000 });
    await sleep(50);
    expect(existsSync(marker)).toBe(true);
    first.release();
    // The worker asks with the lock free, yet the waiter takes it first.
    const worker = waitForWriterLock({ db, command: 'worker', waitMs: 10_000, yields: true });
    const order: string[] = [];
    const [held, workerLock] = await Promise.all([
      waiter.then((lock) => {
        order.push('sync');
        expect(existsSync(marker)).toBe(false);
        setTimeout(() => lock.release(), 100);
        return lock;
      }),
      worker.then((lock) => {
        order.push('worker');
        return lock;
      }),
    ]);
    onCleanup(async () => workerLock.release());
    expect(order).toEqual(['sync', 'worker']);
    expect(held.holder.command).toBe('sync');
    expect(existsSync(marker)).toBe(false);
  });

  it("a worker does not wait for a waiting writer's marker left unwritten, as by a killed waiter", async () => {
    const { db } = setup();
    const marker = waitingMarkerPath(db);
    writeFileSync(marker, 'gone');
    const past = new Date(Date.now() - 60_000);
    utimesSync(marker, past, past);
    const started = Date.now();
    const lock = await waitForWriterLock({ db, command: 'worker', waitMs: 0, yields: true });
    onCleanup(async () => lock.release());
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('a wait for a held lock ends early when its signal aborts, with the reason', async () => {
    const { acquire, db } = setup();
    acquire();
    const stop = new AbortController();
    setTimeout(() => stop.abort(new Error('shutting down')), 100);
    const waited = waitForWriterLock({ db, command: 'worker', waitMs: 60_000, signal: stop.signal });
    await expect(waited).rejects.toThrow('shutting down');
  });

  it('sync --lock-wait waits for another writer, says so once on a terminal, then runs', async () => {
    const sim = await startSimulator({ preRecorded: 3, live: 2 });
    onCleanup(() => sim.close());
    const { acquire, db } = setup();
    const held = acquire({ command: 'worker' });
    // The holder lets go once the sync says it waits.
    const stderr = new TerminalSink(() => {
      if (stderr.text.includes('waiting up to')) held.release();
    });
    const code = await main(['sync', '--db', db, '--lock-wait', '1m'], {
      stdout: new TerminalSink(() => {}),
      stderr,
      env: { TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey, TSYNC_LOG_LEVEL: 'warn' },
    });
    expect(code, stderr.text).toBe(0);
    const waiting = stderr.text.split('\n').filter((line) => line.includes('waiting up to'));
    expect(waiting).toEqual([
      `transcript-sync: ${db} is being written by pid ${process.pid} (transcript-sync worker) on host ${hostname()}, since ${held.holder.since}; waiting up to 1m0s for it (--lock-wait)`,
    ]);
  });

  it('compact, verify --repair and demo refuse a file another writer holds, as sync does, after --lock-wait', async () => {
    const { acquire, db } = setup();
    await copyMigrated(db);
    let held = acquire({ command: 'worker' });
    const busy = `${db} is being written by pid ${process.pid} (transcript-sync worker) on host ${hostname()}`;
    for (const args of [['compact'], ['verify', '--repair']]) {
      const refused = await runMain([...args, '--db', db, '--lock-wait', '0s']);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stderr).toContain(busy);
      expect(refused.stderr).toContain('stop that process or wait for it to finish');
      const waited = await runMain([...args, '--db', db, '--lock-wait', '200ms']);
      expect(waited.code, waited.stderr).toBe(1);
      expect(waited.stderr).toContain('(waited 200ms, --lock-wait)');
      // Released while it waits: it runs.
      setTimeout(() => held.release(), 200);
      const ran = await runMain([...args, '--db', db, '--lock-wait', '1m']);
      expect(ran.code, ran.stderr).toBe(0);
      held = acquire({ command: 'worker' });
    }
    const demo = await runMain(['demo', '--db', db, '--jobs', '4'], { TSYNC_LOCK_WAIT: '0s' });
    expect(demo.code, demo.stderr).toBe(1);
    expect(demo.stderr).toContain(busy);
  });

  it('the same file under another relative spelling is the same lock', () => {
    const { db } = setup();
    expect(writerLockPath(join(db, '..', 'x', '..', 'transcripts.duckdb'))).toBe(writerLockPath(db));
  });
});
