// Child processes of the benchmark (the service, the baseline, the ceiling server), started
// with `node <file>.ts` so that their memory can be read from /proc, apart from the load
// generator's. Readiness is an HTTP answer on a port chosen here (the service then runs at
// LOG_LEVEL=warn: no access-log line per request, and no "listening" line to parse).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

export const REPO_ROOT = new URL('../../', import.meta.url).pathname;

export interface NodeChild {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  /** The last lines of stderr and stdout, for error messages. */
  output(): string;
  stop(): Promise<void>;
}

/** A free loopback port (closed again at once; the child binds it right after). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Environment of a child: only PATH and HOME from ours, so no stray DATABASE_URL leaks in. */
export function childEnv(vars: Record<string, string>): NodeJS.ProcessEnv {
  // MALLOC_ARENA_MAX passes through so the allocator's effect on RSS can be compared.
  const passed = process.env.MALLOC_ARENA_MAX === undefined ? {} : { MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX };
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...passed, ...vars };
}

export async function startNodeChild(opts: {
  name: string;
  script: string;
  env: Record<string, string>;
  port: number;
  /** Path answered with 200 once the child is ready. */
  readyPath: string;
  nodeArgs?: readonly string[];
  readyTimeoutMs?: number;
}): Promise<NodeChild> {
  const child = spawn(process.execPath, [...(opts.nodeArgs ?? []), opts.script], {
    cwd: REPO_ROOT,
    env: childEnv({ ...opts.env, PORT: String(opts.port) }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${opts.port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  let ready = false;
  while (!ready) {
    if (child.exitCode !== null) throw new Error(`${opts.name} exited with ${child.exitCode}: ${tail}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${opts.name} not ready in time: ${tail}`);
    }
    ready = await fetch(url + opts.readyPath, { signal: AbortSignal.timeout(1000) }).then(
      (res) => res.ok,
      () => false,
    );
    if (!ready) await sleep(100);
  }
  return {
    name: opts.name,
    pid: child.pid as number,
    url,
    output: () => tail,
    stop: () => stopChild(child, exited),
  };
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** Runs `node <script> args...` to the end; stdout on success, the stderr line otherwise. */
export async function runNode(script: string, args: readonly string[], env: Record<string, string>): Promise<string> {
  const child = spawn(process.execPath, [script, ...args], { cwd: REPO_ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`${script} ${args[0] ?? ''} failed (${code}): ${err.trim()}`);
  return out;
}

function statusKiB(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined; // the process is gone
  }
}

function resetHighWaterMark(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * Peak resident memory of a process while a scenario runs: VmRSS sampled every 100 ms, and
 * VmHWM (the kernel's own high-water mark, reset at the start through clear_refs when the
 * kernel allows it) read at the end, so a spike between two samples is not missed.
 */
export class RssSampler {
  readonly #pid: number;
  readonly #timer: NodeJS.Timeout;
  #peakKiB = 0;
  readonly #hwmReset: boolean;

  constructor(pid: number) {
    this.#pid = pid;
    this.#hwmReset = resetHighWaterMark(pid);
    this.#sample();
    this.#timer = setInterval(() => this.#sample(), 100);
  }

  #sample(): void {
    const rss = statusKiB(this.#pid, 'VmRSS');
    if (rss !== undefined && rss > this.#peakKiB) this.#peakKiB = rss;
  }

  /** Peak RSS in MiB since construction. */
  stop(): number {
    clearInterval(this.#timer);
    this.#sample();
    const hwm = this.#hwmReset ? statusKiB(this.#pid, 'VmHWM') : undefined;
    return Math.max(this.#peakKiB, hwm ?? 0) / 1024;
  }
}
