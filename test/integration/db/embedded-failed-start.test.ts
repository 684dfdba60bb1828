// R49: the embedded database's lock file and socket live in DATA_DIR (with a directory of its own
// under $TMPDIR when DATA_DIR is too long for a socket path), and go away when the server ends.
// That holds for a start that fails after the database opened, too: the port is taken (or, for a
// user who is not root, a port below 1024), a model of GEMINI_MODEL answers 404 (R42). The
// process exits 1 and leaves DATA_DIR as a clean stop does: no lock naming a dead process, no
// socket, no directory under $TMPDIR.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { LOCK_FILE_NAME } from '../../../src/db/embedded-lock.ts';
import { SOCKET_FILE_NAME } from '../../../src/db/embedded.ts';

const MAIN = fileURLToPath(new URL('../../../src/main.ts', import.meta.url));

/** A TCP port held by a plain listener (no SO_REUSEPORT), so that the service cannot bind it. */
async function takenPort(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

/** Runs `node src/main.ts` to its exit; its exit code and output. */
function runToExit(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => resolve({ code, output }));
  });
}

describe('a start that fails after the embedded database opened leaves DATA_DIR as a clean stop does (R49)', function () {
  this.timeout(120_000);
  let root: string;
  let blocker: Server | undefined;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'ers-failed-start-'));
  });

  afterEach(async () => {
    await new Promise((resolve) => (blocker ? blocker.close(resolve) : resolve(undefined)));
    blocker = undefined;
    await rm(root, { recursive: true, force: true });
  });

  const env = (dataDir: string, port: number, temporary: string): NodeJS.ProcessEnv => {
    const vars: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', TMPDIR: temporary, LOG_LEVEL: 'info' };
    delete vars.DATABASE_URL;
    delete vars.DATABASE_DIRECT_URL;
    delete vars.METRICS_PORT;
    return vars;
  };

  for (const [what, long] of [
    ['a DATA_DIR that holds its socket', false],
    ['a DATA_DIR too long for a socket path (its socket in a directory under $TMPDIR)', true],
  ] as const) {
    it(`the port is taken: exit 1, one line, and no lock file, socket or $TMPDIR directory left, for ${what}`, async () => {
      const temporary = join(root, 'tmp');
      await mkdir(temporary);
      const dataDir = long ? join(root, 'a'.repeat(60), 'b'.repeat(60)) : join(root, 'data');
      const taken = await takenPort();
      blocker = taken.server;
      const { code, output } = await runToExit(env(dataDir, taken.port, temporary));
      expect(code, output).to.equal(1);
      expect(output).to.match(/start failed/);
      expect(output).to.include('EADDRINUSE');
      const left = await readdir(dataDir);
      expect(left, 'DATA_DIR after the failed start').not.to.include(LOCK_FILE_NAME);
      expect(left, 'DATA_DIR after the failed start').not.to.include(SOCKET_FILE_NAME);
      expect(await readdir(temporary), '$TMPDIR after the failed start').to.deep.equal([]);
      // The database itself was kept: it is a failed start, not a failed database.
      expect(left).to.include('pgdata');
    });
  }
});
