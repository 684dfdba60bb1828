// `npm run fuzz`: the hostile-input properties of test/fuzz for a long run. It starts
// the real service against DATABASE_URL, or else against an embedded database of its own in a
// temporary directory (as `npm test` does), with the same fakes as the CI run.
//   FUZZ_RUNS  total runs, shared out as in CI (default 20000)
//   FUZZ_SEED  replay a run: the seed printed at the start (default: a random seed)
//   FUZZ_ONLY  comma-separated property ids (valid-bodies, near-valid-bodies, random-json,
//              random-bytes, random-headers, huge-bodies, nested-bodies,
//              report-ids)
//   FUZZ_PATH  with FUZZ_ONLY naming one property: replay fast-check's reported path
import { randomInt } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbedded, type EmbeddedServer } from '../src/db/embedded.ts';
import { closeTestOrm } from '../test/support/database.ts';
import { startFuzzTarget, type FuzzTarget } from '../test/contract/fuzz/fuzz-target.ts';
import { ALL_PROPERTIES, checkProperty } from '../test/contract/fuzz/properties.ts';

const totalRuns = Number(process.env.FUZZ_RUNS ?? 20_000);
const seed = process.env.FUZZ_SEED === undefined || process.env.FUZZ_SEED === '' ? randomInt(2 ** 31) : Number(process.env.FUZZ_SEED);
if (!Number.isSafeInteger(totalRuns) || totalRuns < 1) throw new Error('FUZZ_RUNS must be a positive integer');
if (!Number.isSafeInteger(seed)) throw new Error('FUZZ_SEED must be an integer');
const only = (process.env.FUZZ_ONLY ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
const unknown = only.filter((id) => !ALL_PROPERTIES.some((p) => p.id === id));
if (unknown.length > 0) throw new Error(`unknown FUZZ_ONLY ids: ${unknown.join(', ')}`);
const selected = only.length === 0 ? ALL_PROPERTIES : ALL_PROPERTIES.filter((p) => only.includes(p.id));
const path = process.env.FUZZ_PATH || undefined;
if (path !== undefined && selected.length !== 1) throw new Error('FUZZ_PATH needs FUZZ_ONLY naming exactly one property');
const ciTotal = selected.reduce((sum, p) => sum + p.ciRuns, 0);

const onlyPart = only.length === 0 ? '' : ` FUZZ_ONLY=${only.join(',')}`;
console.log(`fuzz seed ${seed}, ${totalRuns} runs (replay: FUZZ_SEED=${seed} FUZZ_RUNS=${totalRuns}${onlyPart} npm run fuzz)`);

let embedded: EmbeddedServer | undefined;
let dataDir: string | undefined;
if (process.env.DATABASE_URL) {
  process.env.TEST_DATABASE_URL = process.env.DATABASE_URL;
  console.log('database: DATABASE_URL');
} else {
  dataDir = await mkdtemp(join(tmpdir(), 'ers-fuzz-'));
  embedded = await startEmbedded(join(dataDir, 'data'));
  process.env.TEST_DATABASE_URL = embedded.url;
  console.log(`database: embedded, in ${dataDir}`);
}

let target: FuzzTarget | undefined;
let failed = false;
try {
  target = await startFuzzTarget();
  for (const property of selected) {
    const numRuns = Math.max(1, Math.round((totalRuns * property.ciRuns) / ciTotal));
    const started = Date.now();
    process.stdout.write(`- ${property.id}: ${numRuns} runs ... `);
    try {
      await checkProperty(property, target, { seed, numRuns, path });
      console.log(`ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    } catch (error) {
      failed = true;
      console.log('FAILED');
      console.log(`  ${property.name}`);
      console.log(`  replay: FUZZ_SEED=${seed} FUZZ_ONLY=${property.id} FUZZ_RUNS=${totalRuns} npm run fuzz (or FUZZ_PATH from the report below)`);
      console.log(error instanceof Error ? `${error.message}\n${error.cause instanceof Error ? `Caused by: ${error.cause.message}` : ''}` : String(error));
    }
  }
} finally {
  await target?.close();
  await closeTestOrm();
  await embedded?.close();
  if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
}
console.log(failed ? `fuzz FAILED (seed ${seed})` : `fuzz passed (seed ${seed})`);
process.exit(failed ? 1 : 0);
