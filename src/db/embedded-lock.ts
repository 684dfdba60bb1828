// The lock file of the embedded database (ruling R3). PGlite cannot be opened by two
// processes, yet the admin CLI may run while the server runs (operator-interface.md). The
// process that opens PGlite records `{ pid, socketDir }` in `${dataDir}/embedded-postgres.json`;
// another process finding a live owner connects to that Unix socket instead (R49: there is no
// TCP port).
import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';

/**
 * Who holds PGlite: the server (`npm start`, for as long as it runs) or a tool that runs one
 * command and exits (`npm run admin`, `npm run migrate`). A server never joins a tool: when the
 * tool exits, its socket goes with it, and the server would be left without a database.
 */
export type EmbeddedRole = 'server' | 'tool';

interface EmbeddedLock {
  pid: number;
  /** The directory holding the owner's socket; empty while the owner is still opening PGlite. */
  socketDir: string;
  /**
   * A lock without one was written by an older release, whose server and tools alike wrote none:
   * it is taken for a server's (joined, as that release's processes were), so an older tool's
   * lock still costs a new server its database when the tool exits, until both are upgraded.
   */
  role: EmbeddedRole;
}

export const LOCK_FILE_NAME = 'embedded-postgres.json';

/** The lock, or undefined when there is none or it is unreadable. */
export async function readLock(path: string): Promise<EmbeddedLock | undefined> {
  try {
    const parsed: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { pid, socketDir, role } = parsed as Record<string, unknown>;
    if (!Number.isSafeInteger(pid) || typeof socketDir !== 'string') return undefined;
    return { pid: pid as number, socketDir, role: role === 'tool' ? 'tool' : 'server' };
  } catch {
    return undefined;
  }
}

// Written to a private temporary file first so readers never see a half-written lock.
async function writeTemp(path: string, lock: EmbeddedLock): Promise<string> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, JSON.stringify(lock), { mode: 0o600 });
  return temp;
}

/** Claims the lock atomically (link fails if it exists). False when another process holds it. */
export async function claimLock(path: string, role: EmbeddedRole): Promise<boolean> {
  const temp = await writeTemp(path, { pid: process.pid, socketDir: '', role });
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp);
  }
}

/** Publishes the socket's directory once the socket server listens. */
export async function publishSocket(path: string, socketDir: string, role: EmbeddedRole): Promise<void> {
  await rename(await writeTemp(path, { pid: process.pid, socketDir, role }), path);
}

/** Removes the lock if it is still the one we read (or ours): never another owner's. */
export async function removeLock(path: string, expectedPid: number): Promise<void> {
  const current = await readLock(path);
  if (current !== undefined && current.pid !== expectedPid) return;
  await unlink(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

export function isProcessAlive(pid: number): boolean {
  // Our own pid in a lock we did not write is a leftover (a container restarts as pid 1).
  if (pid === process.pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function socketAccepts(socketPath: string, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ path: socketPath });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
