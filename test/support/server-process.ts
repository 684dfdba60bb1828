// Runs the real entry point (`node src/main.ts`, what `npm start` runs) as a child process, the
// way an operator starts the service (operator-interface.md), for configuration and signal tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface ServerProcess {
  readonly child: ChildProcess;
  /** Every complete stdout line so far (pino writes one JSON object per line). */
  readonly stdoutLines: string[];
  stderr(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Resolves with the first log line whose msg is `msg` (from stdout line `fromLine` on), rejects
   * if the process exits first. A response can reach the test before the child's stdout does, so a
   * test that reads the lines a request logged waits for them here.
   */
  waitForLog(msg: string, timeoutMs?: number, fromLine?: number): Promise<Record<string, unknown>>;
  /** Kills the child if it still runs (after hooks). */
  kill(): void;
}

/** Only the variables given (and PATH): nothing of the test's own environment leaks in. */
export function startServerProcess(env: Record<string, string>): ServerProcess {
  const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, stdio: 'pipe' });
  const stdoutLines: string[] = [];
  let partial = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    stdoutLines.push(...lines);
    for (const wake of waiters) wake();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      // 'exit' can come before the last stdout data: wait for the streams to end too.
      child.stdout.once('end', () => resolve({ code, signal }));
      if (child.stdout.readableEnded) resolve({ code, signal });
    });
  });
  let done = false;
  void exited.then(() => {
    done = true;
    for (const wake of waiters) wake();
  });

  const parsed = (fromLine: number): Record<string, unknown>[] =>
    stdoutLines.slice(fromLine).flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });

  const waitForLog = (msg: string, timeoutMs = 15_000, fromLine = 0) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const timer = setTimeout(() => finish(new Error(`no "${msg}" log line within ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
      const check = () => {
        const found = parsed(fromLine).find((line) => line.msg === msg);
        if (found) finish(undefined, found);
        else if (done) finish(new Error(`the server exited before logging "${msg}"; stderr: ${stderr}`));
      };
      const finish = (error?: Error, line?: Record<string, unknown>) => {
        clearTimeout(timer);
        waiters.delete(check);
        if (error) reject(error);
        else resolve(line as Record<string, unknown>);
      };
      waiters.add(check);
      check();
    });

  return {
    child,
    stdoutLines,
    stderr: () => stderr,
    exited,
    waitForLog,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/**
 * Starts the service with `env` (and only that), expecting the start to fail; resolves with its
 * exit code, the `start failed` lines it logged, parsed, and everything it printed.
 */
export async function failedStart(env: Record<string, string>): Promise<{ code: number | null; failed: Record<string, unknown>[]; printed: string }> {
  const server = startServerProcess(env);
  try {
    const { code } = await server.exited;
    const failed = server.stdoutLines.flatMap((line) => {
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        return parsed.msg === 'start failed' ? [parsed] : [];
      } catch {
        return [];
      }
    });
    return { code, failed, printed: [...server.stdoutLines, server.stderr()].join('\n') };
  } finally {
    server.kill();
  }
}
