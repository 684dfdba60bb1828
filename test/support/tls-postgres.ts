// A private PostgreSQL cluster for the TLS tests (R48), started by the test: initdb in a
// temporary directory, its own loopback port, ssl = on with a server certificate signed by a CA
// the test made, and pg_hba.conf accepting TCP clients over TLS only (`hostssl`, SCRAM
// password). The test administers it over its Unix socket. initdb and postgres refuse to run
// as root: when the test is root they run as the `postgres` account (runuser).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, chown, copyFile, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './haproxy.ts';
import type { ServerCertificate } from './tls-certificates.ts';

const run = promisify(execFile);

export interface TlsPostgres {
  readonly port: number;
  /** A database `name` owned by a role `user` with `password` (SCRAM). */
  createDatabase(name: string, user: string, password: string): Promise<void>;
  /** A statement as the superuser over the Unix socket. */
  admin<T extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<T[]>;
  /** A login role without a password (for `cert` authentication) that acts as `memberOf`. */
  createCertRole(name: string, memberOf: string): Promise<void>;
  /** Turns TLS off (or on again) with a reload. */
  setSsl(on: boolean): Promise<void>;
  stop(): Promise<void>;
}

/** The directory of initdb and postgres: PG_BIN_DIR, else the newest /usr/lib/postgresql/N/bin, else /usr/local/bin. */
export async function postgresBinDir(): Promise<string> {
  if (process.env.PG_BIN_DIR) return process.env.PG_BIN_DIR;
  const versions = existsSync('/usr/lib/postgresql') ? (await readdir('/usr/lib/postgresql')).sort((a, b) => Number(b) - Number(a)) : [];
  const found = [...versions.map((v) => `/usr/lib/postgresql/${v}/bin`), '/usr/local/bin'].find((dir) => existsSync(join(dir, 'initdb')));
  if (found === undefined) throw new Error('initdb not found (set PG_BIN_DIR)');
  return found;
}

const asRoot = () => process.getuid?.() === 0;
/** The command as the postgres account when the test runs as root. */
const command = (binary: string, args: string[]): [string, string[]] => (asRoot() ? ['runuser', ['-u', 'postgres', '--', binary, ...args]] : [binary, args]);

/** Where the server runs and whom it lets in over TCP; by default loopback on both sides. */
interface PostgresPlace {
  /** The CA whose client certificates the server accepts (ssl_ca_file). */
  clientCa?: string;
  /** Roles that log in with a client certificate (`hostssl ... cert`) instead of a password. */
  certUsers?: readonly string[];
  /** A network namespace to run the server in (linked-namespace.ts); the Unix socket still serves the test. */
  netns?: string;
  /** listen_addresses; 127.0.0.1 by default. */
  listenAddress?: string;
  /** The one client address pg_hba.conf accepts over TCP; 127.0.0.1 by default. */
  clientAddress?: string;
}

export async function startTlsPostgres(dir: string, certificate: ServerCertificate, place: PostgresPlace = {}): Promise<TlsPostgres> {
  const bin = await postgresBinDir();
  const data = join(dir, 'data');
  const socketDir = join(dir, 'socket');
  await mkdir(dir, { recursive: true });
  await mkdir(data, { mode: 0o700 });
  await mkdir(socketDir);
  const owner = asRoot() ? await postgresIds() : undefined;
  if (owner) {
    await chmod(dir, 0o755);
    await chown(data, owner.uid, owner.gid);
    await chown(socketDir, owner.uid, owner.gid);
  }
  const [initdb, initArgs] = command(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth-local=trust', '--auth-host=reject', '-E', 'UTF8', '--no-sync']);
  await run(initdb, initArgs, { timeout: 120_000 });
  // The server reads its key only when it belongs to it and nobody else can read it.
  await copyFile(certificate.certFile, join(data, 'server.crt'));
  await copyFile(certificate.keyFile, join(data, 'server.key'));
  await chmod(join(data, 'server.key'), 0o600);
  if (place.clientCa !== undefined) await copyFile(place.clientCa, join(data, 'client-ca.crt'));
  if (owner) for (const file of ['server.crt', 'server.key', ...(place.clientCa ? ['client-ca.crt'] : [])]) await chown(join(data, file), owner.uid, owner.gid);
  const port = await freePort();
  await writeFile(
    join(data, 'postgresql.auto.conf'),
    [
      `port = ${port}`,
      `listen_addresses = '${place.listenAddress ?? '127.0.0.1'}'`,
      `unix_socket_directories = '${socketDir}'`,
      'ssl = on',
      "ssl_cert_file = 'server.crt'",
      "ssl_key_file = 'server.key'",
      ...(place.clientCa !== undefined ? ["ssl_ca_file = 'client-ca.crt'"] : []),
      "password_encryption = 'scram-sha-256'",
      'fsync = off',
      'max_connections = 50',
      '',
    ].join('\n'),
  );
  await writeFile(
    join(data, 'pg_hba.conf'),
    [
      'local all postgres trust',
      ...(place.certUsers ?? []).map((user) => `hostssl all ${user} ${place.clientAddress ?? '127.0.0.1'}/32 cert`),
      `hostssl all all ${place.clientAddress ?? '127.0.0.1'}/32 scram-sha-256`,
      '',
    ].join('\n'),
  );
  if (owner) for (const file of ['postgresql.auto.conf', 'pg_hba.conf']) await chown(join(data, file), owner.uid, owner.gid);
  const [postgres, serverArgs] = command(join(bin, 'postgres'), ['-D', data]);
  const [binary, args] = place.netns === undefined ? [postgres, serverArgs] : ['ip', ['netns', 'exec', place.netns, postgres, ...serverArgs]];
  const child: ChildProcess = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const adminClient = () => new pg.Client({ host: socketDir, port, user: 'postgres', database: 'postgres' });
  const admin = async <T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> => {
    const client = adminClient();
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`postgres exited at start: ${log}`);
    try {
      await admin('select 1');
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`postgres did not start: ${log}`);
      await sleep(100);
    }
  }
  return {
    port,
    admin,
    async createDatabase(name, user, password) {
      // Identifiers are the test's own constants; the password goes as a literal built by the server.
      const [row] = await admin<{ sql: string }>('select format($$create role %I login password %L$$, $1::text, $2::text) as sql', [user, password]);
      await admin(row?.sql ?? '');
      await admin(`create database ${name} owner ${user}`);
    },
    async createCertRole(name, memberOf) {
      await admin(`create role ${name} login in role ${memberOf}`);
    },
    async setSsl(on) {
      await admin(`alter system set ssl = ${on ? 'on' : 'off'}`);
      await admin('select pg_reload_conf()');
      // The postmaster applies a reload asynchronously: wait until new sessions see it.
      const deadline = Date.now() + 10_000;
      while ((await admin<{ ssl: string }>('show ssl'))[0]?.ssl !== (on ? 'on' : 'off') && Date.now() < deadline) await sleep(100);
    },
    async stop() {
      // The postmaster itself, not the runuser or `ip netns exec` in front of it: killing those
      // would leave the server running on a deleted directory.
      const postmaster = Number((await readFile(join(data, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0]);
      const signal = (name: NodeJS.Signals) => {
        try {
          if (postmaster > 0) process.kill(postmaster, name);
          else child.kill(name);
        } catch {
          // Already gone.
        }
      };
      signal('SIGINT');
      await Promise.race([exited, sleep(30_000).then(() => signal('SIGKILL'))]);
      await Promise.race([exited, sleep(5_000)]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const uid = Number((await run('id', ['-u', 'postgres'])).stdout.trim());
  const gid = Number((await run('id', ['-g', 'postgres'])).stdout.trim());
  return { uid, gid };
}
