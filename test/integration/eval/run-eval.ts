// Runs `npm run eval`'s entry point (eval/run.ts) as a child process, the way an operator or CI
// does, with an environment made for the test: nothing of the caller's Gemini settings leaks in.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const SMALL_CASES = fileURLToPath(new URL('./fixtures/small.jsonl', import.meta.url));

export interface EvalRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export async function runEval(args: readonly string[], env: Readonly<Record<string, string>> = {}): Promise<EvalRun> {
  const child = spawn(process.execPath, ['eval/run.ts', ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}
