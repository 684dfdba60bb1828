// `npm test` (operator-interface.md): the whole suite against DATABASE_URL when set, else
// against an embedded database of its own (ruling R3) in a fresh temporary directory, relayed
// to a loopback port for the run (loopback-relay.ts says why; the service has no such port, R49). Mocha runs as a child with TEST_DATABASE_URL set; extra arguments
// are passed on (`npm test -- test/integration/db/usage-counter-trigger.test.ts`).
//
// `--tier NAME` (repeatable, or a comma list) runs one tier of test/: unit (no database, no
// process, milliseconds a test), integration (one domain against the real database and local
// servers), e2e (the service as a process), contract (the published contract: schemas,
// conformance, SDKs, fuzzing) and operations (running it: instances, draining, observability).
// The unit tier alone starts no database.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmbedded, type EmbeddedServer } from '../src/db/embedded.ts';
import { startLoopbackRelay, type LoopbackRelay } from './loopback-relay.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const mocha = join(root, 'node_modules/.bin/mocha');
const TIERS = ['unit', 'integration', 'e2e', 'contract', 'operations'] as const;
const env = { ...process.env };
let embedded: EmbeddedServer | undefined;
let relay: LoopbackRelay | undefined;
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

/** `--tier a,b` / `--tier a --tier b` / `--tier=a`: the tiers named, and the other arguments. */
function splitTiers(args: string[]): { tiers: string[]; rest: string[] } {
  const tiers: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    const value = arg === '--tier' ? args[++i] : arg.startsWith('--tier=') ? arg.slice('--tier='.length) : undefined;
    if (value === undefined) {
      rest.push(arg);
      continue;
    }
    for (const tier of value.split(',')) {
      if (!(TIERS as readonly string[]).includes(tier)) {
        console.error(`npm test: --tier takes one of ${TIERS.join(', ')}; got "${tier}"`);
        process.exit(2);
      }
      tiers.push(tier);
    }
  }
  return { tiers, rest };
}

const { tiers, rest } = splitTiers(process.argv.slice(2));
const tierFiles = tiers.map((tier) => `test/${tier}/**/*.test.ts`);
const needsDatabase = !(tiers.length > 0 && tiers.every((tier) => tier === 'unit'));

if (!needsDatabase) {
  // The unit tier runs on fakes: a test that reaches for the database fails on the missing URL.
  delete env.TEST_DATABASE_URL;
} else if (process.env.DATABASE_URL) {
  env.TEST_DATABASE_URL = process.env.DATABASE_URL;
} else {
  embedded = await startEmbedded(join(runDir, 'data'));
  relay = await startLoopbackRelay(embedded.socketPath);
  env.TEST_DATABASE_URL = `postgres://postgres@127.0.0.1:${relay.port}/postgres`;
}

const args = await mochaArgs([...tierFiles, ...rest]);
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, [mocha, ...args], { stdio: 'inherit', env, cwd: root });
  // Ctrl-C reaches mocha; this process stays to close the database and remove its files.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal === null ? 0 : 1)));
});

await relay?.close();
await embedded?.close();
await rm(runDir, { recursive: true, force: true });
process.exit(code);
