// R35 through `npm start`, the command the operator interface names. A supervisor (a container's
// entrypoint, systemd, a process manager) signals the process it started: npm. npm passes the
// signal on to the shell that runs the start script; the script `exec`s node, so that shell is
// the service itself. Without the exec, Debian's sh (dash) died of the SIGTERM without passing it
// on: npm exited 143, and the service went on serving, orphaned, never draining.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { isProcessAlive } from '../../src/db/embedded-lock.ts';
import { freePort } from '../support/haproxy.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Every process below `pid`, from /proc (parent ids). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const child of children.get(p) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

describe('SIGTERM to `npm start` reaches the service (R35)', function () {
  this.timeout(90_000);
  let dataDir: string;
  let left: number[] = [];

  before(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'ers-npm-start-'));
  });

  after(() => {
    for (const pid of left.filter(isProcessAlive)) process.kill(pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the service drains and exits, npm exits 0, and no process of it is left running', async () => {
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
    // The embedded database of its own DATA_DIR, whatever database the suite runs against.
    delete env.DATABASE_URL;
    delete env.DATABASE_DIRECT_URL;
    const npm = spawn('npm', ['start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    npm.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
    npm.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      npm.once('exit', (code, signal) => resolve({ code, signal })),
    );

    const deadline = Date.now() + 60_000;
    for (;;) {
      const healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.ok, () => false);
      if (healthy) break;
      expect(npm.exitCode, log).to.equal(null);
      expect(Date.now() < deadline, `npm start did not answer /healthz within 60 s: ${log}`).to.equal(true);
      await sleep(200);
    }
    left = descendants(npm.pid as number);
    const service = left.filter((pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes('src/main.ts'));
    expect(service, 'the service process under npm').to.have.lengthOf(1);

    npm.kill('SIGTERM');
    const exit = await Promise.race([exited, sleep(30_000).then(() => undefined)]);
    expect(exit, `npm did not exit within 30 s of SIGTERM: ${log}`).to.not.equal(undefined);
    expect(exit).to.deep.equal({ code: 0, signal: null });
    expect(log).to.include('shutting down');
    const stillRunning = left.filter(isProcessAlive);
    expect(stillRunning, 'processes of npm start still running after it exited').to.deep.equal([]);
    const answered = await fetch(`http://127.0.0.1:${port}/healthz`).then(() => true, () => false);
    expect(answered, 'the port still answers').to.equal(false);
  });
});
