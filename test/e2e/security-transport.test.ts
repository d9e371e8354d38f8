/**
 * Where the key may go and how: only to the configured origin whatever `next` says, only over TLS
 * whose certificate verifies (no option or environment variable turns that off), and the DuckDB
 * file and its directory are private to their owner. Where the key goes is the CLI's sync in this
 * process (the same code as the binary, no process start each); the TLS and umask cases spawn the
 * binary, since what they vary (NODE_TLS_REJECT_UNAUTHORIZED, NODE_EXTRA_CA_CERTS, the umask) is
 * the process's own.
 */
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config/settings.js';
import { type Simulator, startSimulator } from '../../src/simulator/index.js';
import { projectRoot } from '../../src/util/paths.js';
import { BIN, type CliResult, childEnv, runCli, runMain, shownLines } from '../helpers/cli.js';
import { migratedDb } from '../helpers/migrated-db.js';
import { actualFacts, expectedFacts } from '../helpers/mirror.js';
import {
  NEXT_SPELLINGS,
  type Origin,
  startForeignOrigin,
  startRelinkingProxy,
} from '../helpers/relinking-proxy.js';
import { fileTempDir, tempDir } from '../helpers/tmp.js';

const opened: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const server of opened.splice(0).reverse()) await server.close();
});

async function simulator(): Promise<Simulator> {
  const sim = await startSimulator({
    preRecorded: 15,
    live: 10,
    seed: 61,
    limitCap: 10,
    utterancesPerJob: 2,
    wordsPerUtterance: 3,
  });
  opened.push(sim);
  return sim;
}

async function expectAllJobs(db: string, sim: Simulator): Promise<void> {
  expect((await actualFacts(db)).jobs).toEqual(expectedFacts(sim.data.all()).jobs);
}

describe('the key goes only to the configured origin', () => {
  it(`whatever \`next\` names (${Object.keys(NEXT_SPELLINGS).join(', ')}), the foreign server sees no request`, async () => {
    const sim = await simulator();
    const foreign: Origin = await startForeignOrigin();
    opened.push(foreign);
    // Each page's `next` in the next spelling: small pages, so that every spelling is served.
    const proxy = await startRelinkingProxy(sim.url, foreign.url, NEXT_SPELLINGS);
    opened.push(proxy);
    const db = await migratedDb('origin.duckdb');
    const result = await runMain(['sync', '--db', db, '--page-size', '2'], {
      TSYNC_BASE_URL: proxy.url,
      TSYNC_API_KEY: sim.apiKey,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(new Set(proxy.spelled)).toEqual(new Set(Object.keys(NEXT_SPELLINGS)));
    expect(foreign.requests, `after the spellings ${proxy.spelled.join(', ')}`).toEqual([]);
    // The walk went through several pages, each asked of the configured origin with the key.
    expect(proxy.requests.length).toBeGreaterThan(4);
    expect(proxy.requests.every((r) => r.hadKey)).toBe(true);
    await expectAllJobs(db, sim);
  });

  it("follows only the offset of the simulator's foreign-origin links and mirrors every job", async () => {
    const sim = await simulator();
    sim.faults.setRandom({ rate: 1, kinds: ['next-foreign-origin'] });
    const db = await migratedDb('evil.duckdb');
    const result = await runMain(['sync', '--db', db, '--page-size', '10'], {
      TSYNC_BASE_URL: sim.url,
      TSYNC_API_KEY: sim.apiKey,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(sim.log.filter((e) => e.fault === 'next-foreign-origin').length).toBeGreaterThan(4);
    await expectAllJobs(db, sim);
  });
});

describe('TLS certificate checks stay on', () => {
  const certs = fileTempDir('tsync-tls-');
  let server: Server;
  let requests = 0;
  let url = '';
  beforeAll(async () => {
    // A self-signed certificate for 127.0.0.1, made now so it never expires in the repository.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        join(certs.dir, 'key.pem'),
        '-out',
        join(certs.dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    server = createHttpsServer(
      { key: readFileSync(join(certs.dir, 'key.pem')), cert: readFileSync(join(certs.dir, 'cert.pem')) },
      (_req, res) => {
        requests += 1;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ first: '', current: '', next: null, items: [] }));
      },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    certs.remove();
  });

  /**
   * A sync of the server: in a process of its own when `env` holds node's own variables, read as
   * the process starts; in this one (runMain) otherwise.
   */
  const sync = async (env: Record<string, string> = {}): Promise<CliResult> =>
    (Object.keys(env).length > 0 ? runCli : runMain)(['sync', '--db', await migratedDb('tls.duckdb')], {
      TSYNC_BASE_URL: url,
      TSYNC_API_KEY: 'k',
      ...env,
    });

  it('refuses a self-signed certificate with a clear error, before any request is sent', async () => {
    const result = await sync();
    expect(result.code).toBe(1);
    // Each kind's summary line (the first FAILED, the other not started), then the one error line.
    const lines = shownLines(result.stderr);
    expect(lines.slice(0, -1)).toEqual([
      expect.stringMatching(/^pre-recorded: FAILED \(.*not trusted/),
      'live: not started (the run stopped before it)',
    ]);
    expect(lines.at(-1)).toMatch(/^transcript-sync: .*(certificate .*not trusted|not trusted.*certificate)/i);
    expect(lines.at(-1)).toContain('NODE_EXTRA_CA_CERTS');
    expect(requests).toBe(0);
  });

  it("refuses it even with node's NODE_TLS_REJECT_UNAUTHORIZED=0", async () => {
    const result = await sync({ NODE_TLS_REJECT_UNAUTHORIZED: '0' });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/not trusted/);
    expect(requests).toBe(0);
  });

  it('connects once the certificate is trusted through NODE_EXTRA_CA_CERTS (the check is about trust)', async () => {
    const result = await sync({ NODE_EXTRA_CA_CERTS: join(certs.dir, 'cert.pem') });
    expect(result.code, result.stderr).toBe(0);
    expect(requests).toBeGreaterThan(0);
  });

  it('has no option, setting or code path that turns verification off', () => {
    const files = ['src', 'jobs', 'bin'].flatMap((dir) => sourceFiles(join(projectRoot(), dir)));
    expect(files.length).toBeGreaterThan(50);
    for (const file of files) {
      const code = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\/\/|\*|\/\*)/.test(line))
        .join('\n');
      expect(code, file).not.toMatch(/NODE_TLS_REJECT_UNAUTHORIZED|checkServerIdentity|insecureHTTPParser/);
      for (const match of code.matchAll(/rejectUnauthorized\s*:\s*([^,}\s]+)/g))
        expect(match[1], file).toBe('true');
    }
    expect(Object.keys(SETTINGS).filter((name) => /tls|insecure|verify|cert/i.test(name))).toEqual([]);
  });
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => statSync(path).isFile() && /(\.ts|transcript-sync)$/.test(path));
}

describe('files are private to their owner', () => {
  it('creates the database 0600 and its new directories 0700, even under umask 000', async () => {
    const sim = await simulator();
    const root = tempDir();
    const db = join(root, 'fresh', 'nested', 'data.duckdb');
    // sh sets the umask; exec keeps the pid, so the CLI itself runs under it.
    const child = spawn(
      '/bin/sh',
      ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, BIN, 'sync', '--db', db],
      {
        env: childEnv({ TSYNC_BASE_URL: sim.url, TSYNC_API_KEY: sim.apiKey }),
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code, stderr).toBe(0);
    const mode = (path: string) => (statSync(path).mode & 0o777).toString(8);
    expect(mode(join(root, 'fresh'))).toBe('700');
    expect(mode(join(root, 'fresh', 'nested'))).toBe('700');
    expect(mode(db)).toBe('600');
    for (const name of readdirSync(join(root, 'fresh', 'nested')))
      expect(mode(join(root, 'fresh', 'nested', name)), name).toBe('600');
    await expectAllJobs(db, sim);
  });
});
