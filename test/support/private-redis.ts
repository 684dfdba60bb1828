// A redis-server of the test's own on a free loopback port (no persistence), for what the shared
// Redis cannot be put through: roles changed by a failover, TLS and ACL users (tls-redis.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { acceptsConnections, freePort } from './haproxy.ts';

export interface PrivateRedis {
  readonly port: number;
  /** SIGSTOP: a stalled server (swapping, a long fork, a frozen VM) that reads nothing until resumed, then runs what it had been sent. */
  pause(): void;
  /** SIGCONT after pause(). */
  resume(): void;
  stop(): Promise<void>;
}

/** Runs redis-server with `args` until it accepts connections on `port`; its output is the error if it does not. */
export async function startRedisServer(args: readonly string[], port: number, what: string): Promise<PrivateRedis> {
  const child: ChildProcess = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const deadline = Date.now() + 10_000;
  while (!(await acceptsConnections(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${what} did not start: ${log}`);
    }
    await sleep(50);
  }
  return {
    port,
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    async stop() {
      child.kill('SIGCONT');
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(3_000).then(() => child.kill('SIGKILL'))]);
    },
  };
}

/** A plain redis-server, nothing kept on disk. */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'ers-redis-'));
  const redis = await startRedisServer(['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir], port, 'redis-server');
  return {
    port,
    pause: () => redis.pause(),
    resume: () => redis.resume(),
    async stop() {
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
