/** The lock file beside a DuckDB file that keeps it to one writer, whatever Redis prefix is used. */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabaseError } from '../src/errors.js';
import { acquireWriterLock, type WriterLockOptions, writerLockPath } from '../src/store/writer-lock.js';
import { tempDir } from './helpers/tmp.js';
import { onCleanup } from './helpers/worker.js';

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

  it('the same file under another relative spelling is the same lock', () => {
    const { db } = setup();
    expect(writerLockPath(join(db, '..', 'x', '..', 'transcripts.duckdb'))).toBe(writerLockPath(db));
  });
});
