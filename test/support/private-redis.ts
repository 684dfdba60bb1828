// A plain redis-server of the test's own on a free loopback port (no persistence), for what the
// shared Redis cannot be put through: roles changed by a failover, for one.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptsConnections, freePort } from './haproxy.ts';

export interface PrivateRedis {
  readonly port: number;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'ers-redis-'));
  const child: ChildProcess = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await acceptsConnections(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not start: ${log}`);
    }
    await sleep(50);
  }
  return {
    port,
    async stop() {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(3_000).then(() => child.kill('SIGKILL'))]);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
