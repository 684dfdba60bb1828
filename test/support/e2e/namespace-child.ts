// The child process of the namespace tests (a test run started under `unshare`): the repository
// it runs in, the shell quoting of its command line, and its exit code with all it printed.
import { spawn } from 'node:child_process';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '..', '..', '..');

/** One argument for `sh -c`, in single quotes. */
export const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `command` in the repository; resolves with its exit code (null: it could not start, or ran
 * past `timeoutMs`) and its stdout and stderr. The child leads a process group of its own, and a
 * child past `timeoutMs` (under the tests' own 300 s) is killed with the whole group, so that
 * nothing it started outlives the test.
 */
export function runChild(command: string, args: string[], env: NodeJS.ProcessEnv, timeoutMs = 240_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let output = '';
    const timer = setTimeout(() => {
      output += `\n${command} ran past ${timeoutMs} ms: killed with its process group`;
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${output}\ncould not start ${command}: ${error.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}
