// Runs the real admin CLI (`node src/cli/admin.ts`) against the test database, the way an
// operator does (operator-interface.md "Admin command line").
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { testDatabaseUrl } from './database.ts';

const run = promisify(execFile);
const CLI = new URL('../../src/cli/admin.ts', import.meta.url).pathname;

export interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function admin(...args: string[]): Promise<AdminRun> {
  const env = { ...process.env, DATABASE_URL: testDatabaseUrl(), LOG_LEVEL: 'silent' };
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: failed.code ?? -1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

/** Runs a command with --json, expects success, and returns the one JSON object printed. */
export async function adminJson<T = Record<string, unknown>>(...args: string[]): Promise<T> {
  const result = await admin(...args, '--json');
  if (result.code !== 0) throw new Error(`admin ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  const lines = result.stdout.trimEnd().split('\n');
  if (lines.length !== 1) throw new Error(`expected one line of JSON, got: ${result.stdout}`);
  return JSON.parse(lines[0] as string) as T;
}

/** Exact key set of an object: the --json shapes of operator-interface.md are fixed. */
export function keysOf(value: unknown): string[] {
  return Object.keys(value as object).sort();
}
