// A real PgBouncer (Debian's package) started by the test, in front of the test PostgreSQL server
// (R47): pool_mode = transaction, and otherwise the settings a stock installation has. In
// particular ignore_startup_parameters is left unset, as in Debian's pgbouncer.ini, so a
// statement_timeout (or any `options`) sent at start-up is refused. Clients are trusted
// (auth_type = trust with a userlist), it listens on a free loopback port and logs to a file the
// test can read. Missing pgbouncer fails the test: `.ci/run` installs it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptsConnections, freePort } from './haproxy.ts';

export interface PgBouncer {
  /** The pooler's URL for a database of the target server (same user, same database name). */
  urlFor(directUrl: string): string;
  readonly port: number;
  /** Its log so far. */
  log(): Promise<string>;
  stop(): Promise<void>;
}

/** The pgbouncer binary: PGBOUNCER_BIN, else PATH, else /usr/sbin (Debian). */
export function findPgbouncer(): string {
  if (process.env.PGBOUNCER_BIN) return process.env.PGBOUNCER_BIN;
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  const found = dirs.filter(Boolean).map((dir) => join(dir, 'pgbouncer')).find((path) => existsSync(path));
  if (found === undefined) throw new Error('pgbouncer is not installed (Debian package pgbouncer; .ci/run installs it)');
  return found;
}

/**
 * Starts PgBouncer in front of the server of `serverUrl`: any database on it (`* = host=... port=...`),
 * or, with `aliases`, only those names, each for the server's database it names (as managed
 * poolers name their pools).
 */
export async function startPgbouncer(serverUrl: string, settings: Record<string, string> = {}, aliases?: Record<string, string>): Promise<PgBouncer> {
  const binary = findPgbouncer();
  const target = new URL(serverUrl);
  const user = decodeURIComponent(target.username || 'postgres');
  const dir = await mkdtemp(join(tmpdir(), 'ers-pgbouncer-'));
  const port = await freePort();
  const logFile = join(dir, 'pgbouncer.log');
  const asRoot = process.getuid?.() === 0;
  const config = {
    listen_addr: '127.0.0.1',
    listen_port: String(port),
    unix_socket_dir: '',
    auth_type: 'trust',
    auth_file: join(dir, 'userlist.txt'),
    pool_mode: 'transaction',
    logfile: logFile,
    pidfile: '',
    max_client_conn: '500',
    default_pool_size: '20',
    // PgBouncer refuses to run as root: it switches to the PostgreSQL account (Debian's setup).
    ...(asRoot ? { user: 'postgres' } : {}),
    ...settings,
  };
  const server = `host=${target.hostname} port=${target.port || 5432}`;
  const databases = aliases === undefined ? `* = ${server}` : Object.entries(aliases).map(([alias, dbname]) => `${alias} = ${server} dbname=${dbname}`).join('\n');
  const ini = `[databases]\n${databases}\n\n[pgbouncer]\n${Object.entries(config)
    .map(([key, value]) => `${key} = ${value}`)
    .join('\n')}\n`;
  await writeFile(join(dir, 'pgbouncer.ini'), ini);
  await writeFile(join(dir, 'userlist.txt'), `"${user}" ""\n`);
  await writeFile(logFile, '');
  if (asRoot) {
    // The account PgBouncer switches to writes the log and reads the files.
    await chmod(dir, 0o777);
    await chmod(logFile, 0o666);
  }
  const child: ChildProcess = spawn(binary, [join(dir, 'pgbouncer.ini')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`pgbouncer exited at start: ${stderr} ${await readFile(logFile, 'utf8').catch(() => '')}`);
    if (await acceptsConnections(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`pgbouncer did not listen on ${port}: ${stderr}`);
    }
    await sleep(50);
  }
  return {
    port,
    urlFor(directUrl: string) {
      const url = new URL(directUrl);
      url.hostname = '127.0.0.1';
      url.port = String(port);
      return url.toString();
    },
    log: () => readFile(logFile, 'utf8'),
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(3_000).then(() => child.kill('SIGKILL'))]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
