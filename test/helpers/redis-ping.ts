/**
 * Waits until a redis-server started by a test helper answers PING (10 s at most). The PING goes
 * over a plain socket, which leaves nothing behind once closed; a Redis client's timers hold the
 * test run's process ~1.7 s past its last test.
 */
import type { ChildProcess } from 'node:child_process';
import { connect } from 'node:net';

const DEADLINE_MS = 10_000;
/** ms between tries while nothing answers. */
const RETRY_MS = 20;
/** ms one try waits for its answer: a server that accepts and stays silent cannot outlast the deadline. */
const ANSWER_MS = 1_000;

export async function waitForPing(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`redis-server exited with code ${child.exitCode}`);
    if (await pongs(port)) return;
    await new Promise((r) => setTimeout(r, RETRY_MS));
  }
  throw new Error(`redis-server did not answer PING within ${DEADLINE_MS / 1000} s`);
}

/** Whether 127.0.0.1:`port` answers an inline PING with +PONG within ANSWER_MS. */
function pongs(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(ANSWER_MS, () => done(false));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\r\n')) done(answer.startsWith('+PONG'));
    });
    socket.on('error', () => done(false));
    socket.on('close', () => done(false));
  });
}
