// `npm test` (operator-interface.md): the whole suite against DATABASE_URL when set, else
// against an embedded database of its own (ruling R3) in a fresh temporary directory, served
// on loopback for the run. Mocha runs as a child with TEST_DATABASE_URL set; extra arguments
// are passed on (`npm test -- test/db/usage-counter-trigger.test.ts`).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbedded, type EmbeddedServer } from '../src/db/embedded.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const mocha = join(root, 'node_modules/.bin/mocha');
const env = { ...process.env };
let embedded: EmbeddedServer | undefined;
const runDir = await mkdtemp(join(tmpdir(), 'ers-test-run-'));

// Mocha adds files named on the command line to the config's `spec` instead of replacing
// it; a copy of .mocharc.json without `spec` makes `npm test -- <file>` run just that file.
async function mochaArgs(args: string[]): Promise<string[]> {
  const files = args.filter((arg) => !arg.startsWith('-') && (existsSync(arg) || /\.ts$|\*/.test(arg)));
  if (files.length === 0) return args;
  const { spec: _spec, ...config } = JSON.parse(await readFile(join(root, '.mocharc.json'), 'utf8')) as Record<string, unknown>;
  const path = join(runDir, 'mocharc.json');
  await writeFile(path, JSON.stringify(config));
  return ['--config', path, ...args];
}

if (process.env.DATABASE_URL) {
  env.TEST_DATABASE_URL = process.env.DATABASE_URL;
} else {
  embedded = await startEmbedded(join(runDir, 'data'));
  env.TEST_DATABASE_URL = embedded.url;
}

const args = await mochaArgs(process.argv.slice(2));
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, [mocha, ...args], { stdio: 'inherit', env, cwd: root });
  // Ctrl-C reaches mocha; this process stays to close the database and remove its files.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 0 : 1)));
});

await embedded?.close();
await rm(runDir, { recursive: true, force: true });
process.exit(code);
