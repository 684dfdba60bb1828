// The child process of the namespace tests (a test run started under `unshare`): the repository
// it runs in, the shell quoting of its command line, and its exit code with all it printed.
import { spawn } from 'node:child_process';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '..', '..', '..');

/** One argument for `sh -c`, in single quotes. */
export const quote = (arg: string): string => `'${arg.replace(/'/g, `'\\''`)}'`;

/** Runs `command` in the repository; resolves with its exit code (null: it could not start) and its stdout and stderr. */
export function runChild(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (error) => resolve({ code: null, output: `${output}\ncould not start ${command}: ${error.message}` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}
