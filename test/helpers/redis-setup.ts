/**
 * The tests' Redis, started only when used: REDIS_URL when set; else this global setup listens on
 * a free port of 127.0.0.1 and hands that port to the tests (`redisUrl()` in ./redis.ts). The first
 * connection to it starts a throwaway redis-server on another free port, and every connection is
 * relayed to it byte for byte. A run whose tests never connect starts no server and needs none
 * installed. Server, relay and folder go when the run ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort } from './net.js';
import { waitForPing } from './redis-ping.js';

declare module 'vitest' {
  export interface ProvidedContext {
    redisUrl: string;
  }
}

interface Started {
  readonly child: ChildProcess;
  readonly port: number;
  readonly dir: string;
}

async function startServer(): Promise<Started> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'tsync-redis-'));
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    { stdio: 'ignore' },
  );
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (error) =>
      reject(
        new Error(
          `cannot start redis-server (${error.message}); install it (apt-get install -y redis-server) or set REDIS_URL`,
        ),
      ),
    );
  });
  await waitForPing(port, child);
  return { child, port, dir };
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (typeof address === 'object' && address) resolve(address.port);
      else reject(new Error('the Redis relay has no port'));
    });
  });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const fromEnv = process.env['REDIS_URL'];
  if (fromEnv) {
    project.provide('redisUrl', fromEnv);
    return async () => {};
  }
  let started: Promise<Started> | undefined;
  let told = false;
  const sockets = new Set<Socket>();
  const relay = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    client.pause();
    started ??= startServer();
    started.then(
      ({ port }) => {
        if (client.destroyed) return;
        const upstream = connect(port, '127.0.0.1');
        sockets.add(upstream);
        upstream.on('close', () => {
          sockets.delete(upstream);
          client.destroy();
        });
        upstream.on('error', () => upstream.destroy());
        client.on('close', () => upstream.destroy());
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      },
      (error: Error) => {
        // Said once; the tests that needed the server fail on their closed connections.
        if (!told) console.error(`transcript-sync tests: ${error.message}`);
        told = true;
        client.destroy();
      },
    );
  });
  const port = await listen(relay);
  project.provide('redisUrl', `redis://127.0.0.1:${port}`);
  return async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((r) => relay.close(r));
    const server = await started?.catch(() => undefined);
    if (!server) return;
    const exited = new Promise((r) => server.child.once('exit', r));
    server.child.kill('SIGTERM');
    await exited;
    rmSync(server.dir, { recursive: true, force: true });
  };
}
