// R49: the embedded database is reachable only by the owner of DATA_DIR. An embedded `npm start`
// listens on TCP for its HTTP port and nothing else; the database answers on a Unix socket inside
// DATA_DIR, which is created with (or tightened to) mode 0700; the admin command line joins
// through that socket while the server runs; a DATA_DIR too long for a socket path still works.
// A start that fails after the database opened (the port taken; for a user who is not root, a
// port below 1024; a model of GEMINI_MODEL that answers 404, R42) exits 1 and leaves DATA_DIR as a
// clean stop does: no lock naming a dead process, no socket, no directory under $TMPDIR.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../../src/config.ts';
import { Customer } from '../../../src/accounts/customer.entity.ts';
import { newEntityManager, openDatabase } from '../../../src/db/database.ts';
import { LOCK_FILE_NAME } from '../../../src/db/embedded-lock.ts';
import { SOCKET_FILE_NAME } from '../../../src/db/embedded.ts';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';

const run = promisify(execFile);
const ADMIN = new URL('../../../src/cli/admin.ts', import.meta.url).pathname;

/** The inodes of the sockets a process holds open (from /proc/<pid>/fd). */
async function socketInodes(pid: number): Promise<Set<string>> {
  const inodes = new Set<string>();
  for (const fd of await readdir(`/proc/${pid}/fd`)) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1] as string);
  }
  return inodes;
}

/** Local ports of the process's listening TCP sockets, IPv4 and IPv6 (state 0A is LISTEN). */
async function listeningTcpPorts(pid: number): Promise<number[]> {
  const mine = await socketInodes(pid);
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    const lines = (await readFile(`/proc/${pid}/net/${table}`, 'utf8')).trim().split('\n').slice(1);
    for (const line of lines) {
      // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
      const fields = line.trim().split(/\s+/);
      const [local, state, inode] = [fields[1], fields[3], fields[9]];
      if (state === '0A' && inode !== undefined && mine.has(inode) && local !== undefined) ports.push(Number.parseInt(local.split(':')[1] ?? '', 16));
    }
  }
  return ports.sort((a, b) => a - b);
}

/** Paths of the listening Unix sockets the process holds (state 01 with the listening flag). */
async function listeningUnixPaths(pid: number): Promise<string[]> {
  const mine = await socketInodes(pid);
  const lines = (await readFile(`/proc/${pid}/net/unix`, 'utf8')).trim().split('\n').slice(1);
  return lines.flatMap((line) => {
    const fields = line.trim().split(/\s+/);
    // Num RefCount Protocol Flags Type St Inode Path; flag 00010000 is __SO_ACCEPTCON (listening).
    const [flags, inode, path] = [fields[3], fields[6], fields[7]];
    return inode !== undefined && mine.has(inode) && flags === '00010000' && path !== undefined ? [path] : [];
  });
}

describe('embedded database on a Unix socket in a private DATA_DIR (R49)', function () {
  this.timeout(60_000);
  let base: string;
  let server: ServerProcess | undefined;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'ers-socket-'));
  });
  afterEach(async () => {
    server?.kill();
    await server?.exited;
    server = undefined;
    await rm(base, { recursive: true, force: true });
  });

  async function startEmbeddedService(dataDir: string): Promise<{ server: ServerProcess; url: string }> {
    server = startServerProcess({ DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info' });
    const line = await server.waitForLog('listening', 45_000);
    return { server, url: line.url as string };
  }

  it('an embedded npm start listens on TCP only for its HTTP port; the database is a socket inside DATA_DIR', async () => {
    const dataDir = join(base, 'data');
    const { server: started, url } = await startEmbeddedService(dataDir);
    const pid = started.child.pid as number;
    // Every listening TCP socket is the HTTP port (its accept sockets share it: accept-sockets.ts).
    const ports = await listeningTcpPorts(pid);
    expect(ports.length).to.be.at.least(1);
    expect([...new Set(ports)]).to.deep.equal([Number(new URL(url).port)]);
    expect(await listeningUnixPaths(pid)).to.deep.equal([join(dataDir, SOCKET_FILE_NAME)]);
    expect((await stat(join(dataDir, SOCKET_FILE_NAME))).isSocket()).to.equal(true);
    expect((await stat(join(dataDir, SOCKET_FILE_NAME))).mode & 0o777).to.equal(0o600);
    const res = await fetch(`${url}/readyz`);
    expect(res.status).to.equal(200);
  });

  it('creates DATA_DIR with mode 0700', async () => {
    const dataDir = join(base, 'new', 'data');
    await startEmbeddedService(dataDir);
    expect((await stat(dataDir)).mode & 0o777).to.equal(0o700);
  });

  for (const [what, place] of [
    ['a file', (file: string) => file],
    ['a path under a file', (file: string) => join(file, 'data')],
  ] as const) {
    it(`a DATA_DIR that is ${what} stops the start with exit 1 and the line naming DATA_DIR (operator-interface.md)`, async () => {
      const file = join(base, `not-a-directory-${what.length}`);
      await writeFile(file, '');
      server = startServerProcess({ DATA_DIR: place(file), PORT: '0', LOG_LEVEL: 'info' });
      const { code } = await server.exited;
      expect(code).to.equal(1);
      expect(server.stdoutLines.join('\n')).to.match(/"err":"DATA_DIR: E(EXIST|NOTDIR)[^"]*","msg":"start failed"/);
    });
  }

  it('tightens an existing DATA_DIR to mode 0700', async () => {
    const dataDir = join(base, 'existing');
    await mkdir(dataDir);
    await chmod(dataDir, 0o755);
    await startEmbeddedService(dataDir);
    expect((await stat(dataDir)).mode & 0o777).to.equal(0o700);
  });

  it('the admin command line joins the running server through its socket', async () => {
    const dataDir = join(base, 'data');
    const { url } = await startEmbeddedService(dataDir);
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    const { stdout } = await run(process.execPath, [ADMIN, 'bootstrap', '--name', 'through the socket', '--json'], { env });
    const { apiKey } = JSON.parse(stdout) as { apiKey: string };
    // The key works against the running server: the CLI wrote to the server's own database.
    const res = await fetch(`${url}/v1/usage/current`, { headers: { 'x-api-key': apiKey } });
    expect(res.status).to.equal(200);
    const lock = JSON.parse(await readFile(join(dataDir, LOCK_FILE_NAME), 'utf8')) as Record<string, unknown>;
    expect(lock).to.deep.equal({ pid: server?.child.pid, socketDir: dataDir, role: 'server' });
  });

  it('another user cannot reach the socket: DATA_DIR is its owner\'s alone', async () => {
    const dataDir = join(base, 'data');
    await startEmbeddedService(dataDir);
    // The test runs as root, who passes every mode; nobody (65534) is "any local user".
    await chmod(base, 0o755);
    const probe = `require('net').connect(${JSON.stringify(join(dataDir, SOCKET_FILE_NAME))}).on('connect',()=>{console.log('connected');process.exit(0)}).on('error',(e)=>{console.log(e.code);process.exit(0)})`;
    const { stdout } = await run('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', probe]);
    expect(stdout.trim()).to.equal('EACCES');
  });

  /**
   * Starts the service with the environment `env` gives for a port that a plain listener holds
   * (no SO_REUSEPORT, so the service cannot bind it too); expects exit 1 and returns its output.
   */
  async function failedStartWithTakenPort(env: (port: number) => Record<string, string>): Promise<string> {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    try {
      server = startServerProcess(env((blocker.address() as AddressInfo).port));
      const exit = await server.exited;
      const output = `${server.stdoutLines.join('\n')}\n${server.stderr()}`;
      expect(exit.code, output).to.equal(1);
      return output;
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  }

  for (const [what, long] of [
    ['a DATA_DIR that holds its socket', false],
    ['a DATA_DIR too long for a socket path (its socket in a directory under $TMPDIR)', true],
  ] as const) {
    it(`a start that fails on a taken port exits 1 and leaves no lock file, socket or $TMPDIR directory, for ${what}`, async () => {
      const temporary = join(base, 'tmp');
      await mkdir(temporary);
      const dataDir = long ? join(base, 'a'.repeat(60), 'b'.repeat(60)) : join(base, 'data');
      const output = await failedStartWithTakenPort((port) => ({ DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: String(port), TMPDIR: temporary, LOG_LEVEL: 'info' }));
      // One line naming the variable of the port (operator-interface.md).
      expect(output).to.match(/"err":"PORT: listen EADDRINUSE[^"]*","msg":"start failed"/);
      const left = await readdir(dataDir);
      expect(left, 'DATA_DIR after the failed start').not.to.include(LOCK_FILE_NAME);
      expect(left, 'DATA_DIR after the failed start').not.to.include(SOCKET_FILE_NAME);
      expect(await readdir(temporary), '$TMPDIR after the failed start').to.deep.equal([]);
      // The database itself is kept: it is a failed start, not a failed database.
      expect(left).to.include('pgdata');
    });
  }

  it('a METRICS_PORT in use stops the start with the line naming METRICS_PORT (operator-interface.md), after the API port listened, and leaves no lock file or socket (R49)', async () => {
    const dataDir = join(base, 'metrics-taken');
    const output = await failedStartWithTakenPort((port) => ({ DATA_DIR: dataDir, PORT: '0', METRICS_HOST: '127.0.0.1', METRICS_PORT: String(port), LOG_LEVEL: 'info' }));
    expect(output).to.match(/"err":"METRICS_PORT: listen EADDRINUSE[^"]*","msg":"start failed"/);
    const left = await readdir(dataDir);
    expect(left).not.to.include(LOCK_FILE_NAME);
    expect(left).not.to.include(SOCKET_FILE_NAME);
  });

  it('a DATA_DIR too long for a Unix socket path still works, the socket file staying inside it', async () => {
    const dataDir = join(base, 'd'.repeat(60), 'e'.repeat(60));
    expect(Buffer.byteLength(join(dataDir, SOCKET_FILE_NAME))).to.be.greaterThan(107);
    const db = await openDatabase(loadConfig({ DATA_DIR: dataDir }), { migrate: true });
    try {
      const em = newEntityManager(db);
      em.create(Customer, { name: 'long path' });
      await em.flush();
      expect((await stat(join(dataDir, SOCKET_FILE_NAME))).isSocket()).to.equal(true);
      // A second process (the admin CLI) joins through the same short name.
      const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
      const { stdout } = await run(process.execPath, [ADMIN, 'customer', 'create', '--name', 'guest', '--json'], { env });
      expect(JSON.parse(stdout)).to.have.property('customerId');
      expect(await newEntityManager(db).count(Customer, {})).to.equal(2);
    } finally {
      await db.close();
    }
  });
});
