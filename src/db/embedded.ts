// The embedded PostgreSQL of ruling R3: PGlite persisted under `${dataDir}/pgdata`, served
// on loopback by pglite-socket to the ordinary `pg` driver. One process owns PGlite; others
// (the admin CLI while the server runs) connect to the owner's port (see embedded-lock.ts).
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import type { Logger } from 'pino';
import { serializeProtocolBatches } from './pglite-socket-queue.ts';
import { claimLock, isProcessAlive, LOCK_FILE_NAME, portAccepts, publishPort, readLock, removeLock } from './embedded-lock.ts';

/** Pool of the owning process. PGlite runs one query at a time, so more buys nothing. */
export const OWNER_POOL_MAX = 4;
/** Pool of a process using another's server (the admin CLI): it runs one command. */
export const GUEST_POOL_MAX = 2;
// Room for the owner's pool plus a few guests; the socket server refuses connections
// beyond it with bytes the pg driver cannot parse, so every pool must fit under it.
const SERVER_MAX_CONNECTIONS = 16;
const WAIT_FOR_OWNER_MS = 30_000;

export interface EmbeddedServer {
  url: string;
  /** True when this process opened PGlite, false when it uses another process's server. */
  owner: boolean;
  poolMax: number;
  close(): Promise<void>;
}

export function embeddedUrl(port: number): string {
  return `postgres://postgres@127.0.0.1:${port}/postgres`;
}

/** Opens (or joins) the embedded database under dataDir. */
export async function startEmbedded(dataDir: string, logger?: Logger): Promise<EmbeddedServer> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const lockPath = join(dataDir, LOCK_FILE_NAME);
  const deadline = Date.now() + WAIT_FOR_OWNER_MS;
  for (;;) {
    if (await claimLock(lockPath)) return openAsOwner(dataDir, lockPath, logger);
    const lock = await readLock(lockPath);
    if (lock === undefined || !isProcessAlive(lock.pid)) {
      logger?.warn({ lockPath, pid: lock?.pid }, 'removing a stale embedded database lock');
      await removeLock(lockPath, lock?.pid ?? Number.NaN);
      continue;
    }
    if (lock.port > 0 && (await portAccepts(lock.port))) {
      logger?.info({ pid: lock.pid, port: lock.port }, 'using the embedded database served by another process');
      return { url: embeddedUrl(lock.port), owner: false, poolMax: GUEST_POOL_MAX, close: async () => {} };
    }
    // The owner is still opening PGlite (port 0) or restarting its listener: wait for it.
    if (Date.now() > deadline) {
      throw new Error(
        `The embedded database in ${dataDir} is held by process ${lock.pid}, which does not answer; ` +
          `stop that process or remove ${lockPath}.`,
      );
    }
    await sleep(100);
  }
}

async function openAsOwner(dataDir: string, lockPath: string, logger?: Logger): Promise<EmbeddedServer> {
  // Undone in reverse order on close, or on a failed start so the lock never outlives us.
  const undo: (() => Promise<void>)[] = [() => removeLock(lockPath, process.pid)];
  const close = async (): Promise<void> => {
    for (const step of undo.splice(0)) await step();
  };
  try {
    const db = await PGlite.create(join(dataDir, 'pgdata'));
    undo.unshift(() => db.close());
    const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: SERVER_MAX_CONNECTIONS });
    serializeProtocolBatches(server);
    await server.start();
    undo.unshift(() => server.stop());
    const conn = server.getServerConn();
    const port = Number(conn.slice(conn.lastIndexOf(':') + 1));
    await publishPort(lockPath, port);
    logger?.info({ dataDir, port }, 'embedded database started');
    return { url: embeddedUrl(port), owner: true, poolMax: OWNER_POOL_MAX, close };
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }
}
