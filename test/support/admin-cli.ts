// The real admin command line (`node src/cli/admin.ts`) with exactly the environment given (and
// PATH), the way an operator runs it against a database of the test's own.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const CLI = new URL('../../src/cli/admin.ts', import.meta.url).pathname;

export interface AdminCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runAdmin(args: readonly string[], env: Record<string, string>): Promise<AdminCliRun> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent', ...env }, timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}
