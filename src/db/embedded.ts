// The embedded PostgreSQL of ruling R3: PGlite persisted under `${dataDir}/pgdata`, served by
// pglite-socket to the ordinary `pg` driver. R49: it listens on no TCP port, only on a Unix
// socket inside DATA_DIR (mode 0700), so only the owner of DATA_DIR (and root) can reach it:
// pglite-socket has no authentication, and whoever reaches it is a superuser. One process
// owns PGlite; others (the admin CLI while the server runs) connect to the owner's socket
// (see embedded-lock.ts).
import { chmod, mkdir, mkdtemp, rm, symlink, unlink } from 'node:fs/promises';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { Logger } from 'pino';
import { serializeProtocolBatches } from './pglite-socket-queue.ts';
import { guardStorageFailures } from './pglite-disk-guard.ts';
import { claimLock, isProcessAlive, LOCK_FILE_NAME, publishSocket, readLock, removeLock, socketAccepts, type EmbeddedRole } from './embedded-lock.ts';

/** Pool of the owning process. PGlite runs one query at a time, so more buys nothing. */
const OWNER_POOL_MAX = 4;
/** Pool of a process using another's server (the admin CLI): it runs one command. */
const GUEST_POOL_MAX = 2;
// Room for the owner's pool plus a few guests; the socket server refuses connections
// beyond it with bytes the pg driver cannot parse, so every pool must fit under it.
const SERVER_MAX_CONNECTIONS = 16;
const WAIT_FOR_OWNER_MS = 30_000;
/** How long a tool that is done waits for the commands that joined its database to finish. */
const GUESTS_FINISH_MS = 30_000;
/** How long a process whose embedded database failed to write lets its answers go out before it exits. */
const STOP_AFTER_STORAGE_FAILURE_MS = 200;
/** node-postgres connects to `${host}/.s.PGSQL.${port}`, libpq's name for a socket. */
const SOCKET_PORT = 5432;
export const SOCKET_FILE_NAME = `.s.PGSQL.${SOCKET_PORT}`;
/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH_BYTES = 107;

export interface EmbeddedServer {
  url: string;
  /** The Unix socket the database answers on (inside DATA_DIR). */
  socketPath: string;
  /** True when this process opened PGlite, false when it uses another process's server. */
  owner: boolean;
  poolMax: number;
  close(): Promise<void>;
}

/**
 * A `pg` URL for the socket directory `socketDir`: the host is the directory, percent-encoded
 * (MikroORM and node-postgres both decode it, and a host beginning with `/` is a Unix socket).
 */
function embeddedUrl(socketDir: string): string {
  return `postgres://postgres@${encodeURIComponent(socketDir)}:${SOCKET_PORT}/postgres`;
}

/** R49: DATA_DIR is private to its owner, whether this call creates it or finds it. */
async function privateDataDir(dataDir: string): Promise<string> {
  const absolute = resolve(dataDir);
  try {
    await mkdir(absolute, { recursive: true, mode: 0o700 });
    await chmod(absolute, 0o700);
  } catch (error) {
    // A file in the way, a path under a file, a directory of another owner: the start's one line
    // names the variable, as a bad value does (operator-interface.md).
    throw new Error(`DATA_DIR: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  return absolute;
}

/**
 * Opens (or joins) the embedded database under dataDir. `role`: a tool (the admin command line)
 * joins whichever process serves it. A server never joins: the database goes away with the
 * process that opened it, a tool after one command and a server when it stops, and a server
 * left on its socket would answer 503 for ever. So a server waits for the holder to finish (a
 * tool) or to stop (another server: the old one of a restart that overlaps) and then opens
 * PGlite itself; one that does neither within the wait stops the start with one line.
 */
export async function startEmbedded(dataDir: string, logger?: Logger, role: EmbeddedRole = 'tool'): Promise<EmbeddedServer> {
  const dir = await privateDataDir(dataDir);
  const lockPath = join(dir, LOCK_FILE_NAME);
  // The wait is per owner: a server that waited for a tool and then finds another server still
  // opening PGlite gives that one the whole wait too.
  let deadline = Date.now() + WAIT_FOR_OWNER_MS;
  let waitingFor: number | undefined;
  for (;;) {
    if (await claimLock(lockPath, role)) return openAsOwner(dir, lockPath, role, logger);
    const lock = await readLock(lockPath);
    if (lock === undefined || !isProcessAlive(lock.pid)) {
      logger?.warn({ lockPath, pid: lock?.pid }, 'removing a stale embedded database lock');
      await removeLock(lockPath, lock?.pid ?? Number.NaN);
      continue;
    }
    if (lock.pid !== waitingFor) {
      waitingFor = lock.pid;
      deadline = Date.now() + WAIT_FOR_OWNER_MS;
      if (role === 'server') logger?.info({ pid: lock.pid, holder: lock.role }, 'the embedded database is held by another process: waiting for it to finish or stop');
    }
    if (role === 'server') {
      if (Date.now() > deadline) {
        throw new Error(
          lock.role === 'tool'
            ? `The embedded database in ${dir} is held by process ${lock.pid} (an admin or migrate command), which has not finished; ` +
                `wait for it or stop it, then start again.`
            : `The embedded database in ${dir} is served by process ${lock.pid}, another npm start: the embedded database serves one ` +
                `instance. Stop that one first (this start waits up to ${WAIT_FOR_OWNER_MS / 1000} s for it), or use PostgreSQL (DATABASE_URL) for several.`,
        );
      }
      await sleep(100);
      continue;
    }
    const socketPath = lock.socketDir === '' ? '' : join(lock.socketDir, SOCKET_FILE_NAME);
    if (socketPath !== '' && (await socketAccepts(socketPath))) {
      logger?.info({ pid: lock.pid }, 'using the embedded database served by another process');
      return { url: embeddedUrl(lock.socketDir), socketPath, owner: false, poolMax: GUEST_POOL_MAX, close: async () => {} };
    }
    // The owner is still opening PGlite (no socket yet) or restarting its listener: wait for it.
    if (Date.now() > deadline) {
      throw new Error(
        `The embedded database in ${dir} is held by process ${lock.pid}, which does not answer; ` +
          `stop that process or remove ${lockPath}.`,
      );
    }
    await sleep(100);
  }
}

/** Resolves once no client is connected to the socket server any more, or after `ms`. */
async function guestsGone(server: PGLiteSocketServer, ms: number): Promise<void> {
  const listener = (server as unknown as { server: Server | null }).server;
  if (listener === null) return;
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const open = await new Promise<number>((resolve) => listener.getConnections((error, count) => resolve(error ? 0 : count)));
    if (open === 0) return;
    await sleep(50);
  }
}

/**
 * The directory through which the socket is named. DATA_DIR itself when its socket path fits
 * in sun_path; else a fresh private directory (0700, random name) in the temporary directory
 * holding a symlink to DATA_DIR, so the socket file still lives in DATA_DIR and every path to it
 * still passes through DATA_DIR's 0700.
 */
async function socketDirectory(dataDir: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const fits = (dir: string) => Buffer.byteLength(join(dir, SOCKET_FILE_NAME)) <= MAX_SOCKET_PATH_BYTES;
  if (fits(dataDir)) return { dir: dataDir, cleanup: async () => {} };
  for (const base of [tmpdir(), '/tmp']) {
    const probe = join(base, 'ers-db-XXXXXX', 'd');
    if (!fits(probe)) continue;
    const holder = await mkdtemp(join(base, 'ers-db-'));
    const dir = join(holder, 'd');
    await symlink(dataDir, dir);
    return { dir, cleanup: () => rm(holder, { recursive: true, force: true }) };
  }
  throw new Error(
    `DATA_DIR ${dataDir} is too long for the embedded database's Unix socket (at most ${MAX_SOCKET_PATH_BYTES - SOCKET_FILE_NAME.length - 1} bytes) and no short temporary directory is available; use a shorter DATA_DIR.`,
  );
}

async function openAsOwner(dataDir: string, lockPath: string, role: EmbeddedRole, logger?: Logger): Promise<EmbeddedServer> {
  // Undone in reverse order on close, or on a failed start so the lock never outlives us.
  const undo: (() => Promise<void>)[] = [() => removeLock(lockPath, process.pid)];
  const close = async (): Promise<void> => {
    for (const step of undo.splice(0)) await step();
  };
  try {
    const db = await PGlite.create(join(dataDir, 'pgdata'));
    // A write its files refused (a full disk) would hang PGlite at its next statement, and the
    // whole process with it (pglite-disk-guard.ts): this process stops instead, with one line,
    // once the answers of the moment have gone out (each a fail-closed 503), and its supervisor
    // starts it again when there is space; the files recover as after a crash.
    guardStorageFailures(db, (code) => {
      const line = `the embedded database in ${dataDir} could not write its files (SQLSTATE ${code}: the disk is full, or a file-size or I/O limit was hit); it cannot go on: stopping. Free space in DATA_DIR, then start again.`;
      if (logger) logger.fatal({ code, dataDir }, line);
      else process.stderr.write(`${line}\n`);
      setTimeout(() => process.exit(1), STOP_AFTER_STORAGE_FAILURE_MS);
    });
    undo.unshift(() => db.close());
    const { dir, cleanup } = await socketDirectory(dataDir);
    undo.unshift(cleanup);
    const socketPath = join(dir, SOCKET_FILE_NAME);
    // A socket file left by a process that died (we hold the lock, so it is nobody's).
    await unlink(join(dataDir, SOCKET_FILE_NAME)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: SERVER_MAX_CONNECTIONS });
    serializeProtocolBatches(server);
    await server.start();
    undo.unshift(() => server.stop());
    if (role === 'tool') {
      // A tool's database goes away when its command ends; another command that joined it
      // meanwhile (admin commands run in parallel by a provisioning script) would lose its
      // connections mid-command. So a tool lets its guests finish first (bounded), and takes
      // its socket out of the lock while it waits, so that a newcomer waits to open PGlite itself.
      undo.unshift(async () => {
        await publishSocket(lockPath, '', role);
        await guestsGone(server, GUESTS_FINISH_MS);
      });
    }
    // The socket's own mode as a second fence (DATA_DIR's 0700 is the first).
    await chmod(join(dataDir, SOCKET_FILE_NAME), 0o600);
    await publishSocket(lockPath, dir, role);
    logger?.info({ dataDir }, 'embedded database started on a Unix socket in DATA_DIR');
    return { url: embeddedUrl(dir), socketPath, owner: true, poolMax: OWNER_POOL_MAX, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
