// Ruling R3 with operator-interface.md: the admin CLI may run while the server runs, on the
// same DATA_DIR, and PGlite cannot be opened twice. The process that opened PGlite publishes
// its socket's directory in DATA_DIR/embedded-postgres.json; a second process connects there (R49). A lock left
// by a dead process is replaced.
import { expect } from 'chai';
import { execFile, spawn, spawnSync, type ChildProcessByStdio } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Readable, Writable } from 'node:stream';
import { loadConfig } from '../../../src/config.ts';
import { Customer } from '../../../src/accounts/customer.entity.ts';
import { newEntityManager, openDatabase, type Database } from '../../../src/db/database.ts';
import { LOCK_FILE_NAME } from '../../../src/db/embedded-lock.ts';

const run = promisify(execFile);
const ADMIN = new URL('../../../src/cli/admin.ts', import.meta.url).pathname;
const EMBEDDED = new URL('../../../src/db/embedded.ts', import.meta.url).pathname;

/**
 * A child process that holds the embedded database of `dataDir` in `role` (a tool, as `npm run
 * admin` does while it runs one command, or a server), until its stdin ends.
 */
async function holderOf(dataDir: string, role: 'tool' | 'server'): Promise<ChildProcessByStdio<Writable, Readable, null>> {
  const holder = spawn(
    process.execPath,
    ['--input-type=module', '-e', `
      const { startEmbedded } = await import(${JSON.stringify(EMBEDDED)});
      const held = await startEmbedded(${JSON.stringify(dataDir)}, undefined, ${JSON.stringify(role)});
      process.stdout.write('held\\n');
      process.stdin.resume();
      process.stdin.on('end', async () => { await held.close(); process.exit(0); });`],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    holder.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve());
    holder.once('exit', () => reject(new Error(`the ${role} exited before it held the database`)));
  });
  return holder;
}

/**
 * A server opening `dataDir`'s database, checked to be still waiting 700 ms later (it did not
 * join the holder); `opening` settles once it has opened it. (Wrapped: an async function's
 * promise would wait for the inner one.)
 */
async function waitingServer(dataDir: string): Promise<{ opening: Promise<Database> }> {
  let opened = false;
  const opening = openDatabase(loadConfig({ DATA_DIR: dataDir }), { migrate: true, embeddedRole: 'server' }).then((db) => ((opened = true), db));
  await new Promise((resolve) => setTimeout(resolve, 700));
  expect(opened, 'the server did not join the holder').to.equal(false);
  return { opening };
}

function deadPid(): number {
  // A process that has exited: its pid is not alive (it could only be reused much later).
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  return Number(child.stdout.toString());
}

describe('embedded database lock file handoff (R3)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ers-handoff-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a second process on the same DATA_DIR uses the first process\'s server, not PGlite (R3)', async () => {
    const owner = await openDatabase(loadConfig({ DATA_DIR: dataDir }), { migrate: true });
    try {
      const lockBefore = await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8');
      expect(JSON.parse(lockBefore)).to.deep.include({ pid: process.pid });
      const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
      const { stdout } = await run(process.execPath, [ADMIN, 'customer', 'create', '--name', 'via the owner', '--json'], { env });
      const { customerId } = JSON.parse(stdout) as { customerId: string };
      // The row is visible through the owner's own PGlite: the CLI wrote through its server.
      const found = await newEntityManager(owner).findOneOrFail(Customer, customerId);
      expect(found.name).to.equal('via the owner');
      // The guest neither replaced nor removed the owner's lock.
      expect(await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8')).to.equal(lockBefore);
    } finally {
      await owner.close();
    }
  });

  it('a server does not join a tool (the admin command line) that holds the database: it waits for it to finish, then opens PGlite itself (R3, R33)', async () => {
    const tool = await holderOf(dataDir, 'tool');
    try {
      expect(JSON.parse(await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8'))).to.include({ pid: tool.pid, role: 'tool' });
      // Another tool joins it, as the admin command line joins a server.
      const guest = await openDatabase(loadConfig({ DATA_DIR: dataDir }));
      expect(JSON.parse(await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8'))).to.include({ pid: tool.pid });
      await guest.close();
      // A server waits: it would lose its database the moment the tool exits.
      const server = await waitingServer(dataDir);
      tool.stdin.end();
      const db = await server.opening;
      try {
        const lock = JSON.parse(await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8')) as { pid: number; role: string };
        expect(lock).to.include({ pid: process.pid, role: 'server' });
        expect(await newEntityManager(db).count(Customer, {})).to.equal(0);
      } finally {
        await db.close();
      }
    } finally {
      tool.kill();
    }
  });

  it('a server does not join another server either: it waits for it to stop (a restart that overlaps), then opens PGlite itself, with the data (R3, R49)', async () => {
    const first = await holderOf(dataDir, 'server');
    try {
      // A tool joins it and writes through it.
      const tool = await openDatabase(loadConfig({ DATA_DIR: dataDir }), { migrate: true });
      const customer = newEntityManager(tool).create(Customer, { name: 'written through the first server' });
      await newEntityManager(tool).persist(customer).flush();
      await tool.close();
      // A second server waits: joined, it would answer 503 for ever once the first one stops.
      const second = await waitingServer(dataDir);
      first.stdin.end();
      const db = await second.opening;
      try {
        expect(JSON.parse(await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8'))).to.include({ pid: process.pid, role: 'server' });
        expect((await newEntityManager(db).findAll(Customer)).map((c) => c.name)).to.deep.equal(['written through the first server']);
      } finally {
        await db.close();
      }
    } finally {
      first.kill();
    }
  });

  it('a lock file whose pid is dead is stale: the next process opens PGlite itself (R3)', async () => {
    await writeFile(join(dataDir, LOCK_FILE_NAME), JSON.stringify({ pid: deadPid(), socketDir: '/nowhere' }), { mode: 0o600 });
    const db = await openDatabase(loadConfig({ DATA_DIR: dataDir }), { migrate: true });
    try {
      const lock = JSON.parse(await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8')) as { pid: number; socketDir: string };
      expect(lock.pid).to.equal(process.pid);
      expect(lock.socketDir).to.equal(dataDir);
      expect(db.url).to.equal(`postgres://postgres@${encodeURIComponent(dataDir)}:5432/postgres`);
      expect(await newEntityManager(db).count(Customer, {})).to.equal(0);
    } finally {
      await db.close();
    }
  });

  it('a lock file naming this very process is stale too (a restarted container reuses pids) (R3)', async () => {
    await writeFile(join(dataDir, LOCK_FILE_NAME), JSON.stringify({ pid: process.pid, socketDir: '/nowhere' }), { mode: 0o600 });
    const db = await openDatabase(loadConfig({ DATA_DIR: dataDir }));
    try {
      const lock = JSON.parse(await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8')) as { socketDir: string };
      expect(lock.socketDir).to.equal(dataDir);
    } finally {
      await db.close();
    }
  });
});
