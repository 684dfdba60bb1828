// Runs the code generators and the TypeScript compiler as customers would, from the project's
// node_modules, in a loopback-only network namespace (`unshare -rn`): a generator that tried to
// reach the network would fail there. Without unshare the check cannot be made, so it fails
// (runNodeOffline throws); it never runs the tools with the network instead.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const CONTRACT = join(ROOT, 'contract', 'openapi.yaml');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

export const NETWORK_NAMESPACE = spawnSync('unshare', ['-rn', 'true']).status === 0;

export interface RunResult {
  code: number | null;
  output: string;
}

/** Runs `node <script> ...args` in cwd, in a network namespace with loopback only. */
export function runNodeOffline(script: string, args: string[], cwd: string): Promise<RunResult> {
  if (!NETWORK_NAMESPACE) {
    return Promise.reject(new Error('unshare -rn is unavailable: the SDK tools cannot be shown to work without the network'));
  }
  return new Promise((resolve, reject) => {
    const child = spawn('unshare', ['-rn', process.execPath, script, ...args], { cwd, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

/** Strict compiler settings a careful customer would use (beyond the project's own). */
export const STRICT_COMPILER_OPTIONS = {
  target: 'es2024',
  lib: ['es2024', 'dom', 'dom.iterable'],
  module: 'nodenext',
  moduleResolution: 'nodenext',
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noImplicitReturns: true,
  noFallthroughCasesInSwitch: true,
  allowImportingTsExtensions: true,
  noEmit: true,
  skipLibCheck: false,
  types: [],
};

/** `tsc --noEmit -p dir` with the given tsconfig, offline. */
export async function typeCheck(dir: string, tsconfig: object): Promise<RunResult> {
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  return runNodeOffline(TSC, ['--noEmit', '-p', join(dir, 'tsconfig.json')], dir);
}

/** A temporary ESM package that resolves the project's node_modules; removed by cleanup(). */
export async function scratchPackage(prefix: string): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'sdk-scratch', private: true, type: 'module' }));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}
