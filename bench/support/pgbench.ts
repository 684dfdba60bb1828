// The durable write of a report measured by PostgreSQL's own pgbench (the floor under POST throughput): BEGIN, the
// report INSERT, the usage INSERT (its trigger keeps usage_counter, as in the service), COMMIT,
// prepared, at the bench's connection count. Runs only where pgbench is installed (it comes with
// PostgreSQL); the bench says so when it is not.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

const SCRIPT = `BEGIN;
SELECT gen_random_uuid() AS rid \\gset
INSERT INTO evidence_report (id, customer_id, api_key_id, request_id, context, language, input, images, result, generator, model, generation_ms, token_usage, created_at) VALUES (:rid, :customer, :apikey, 'pgbench', 'property_maintenance', null, '{"context":"property_maintenance"}', '[]', '{"title":"pgbench"}', 'offline', null, 0, null, now());
INSERT INTO usage_record (id, customer_id, operation, units, report_id, occurred_at) VALUES (gen_random_uuid(), :customer, 'evidence_report', 1, :rid, now());
COMMIT;
`;

async function pgbenchAvailable(): Promise<boolean> {
  return run('pgbench', ['--version']).then(
    () => true,
    () => false,
  );
}

/** Transactions per second of the durable write, or undefined when pgbench is not installed. */
export async function runPgbench(opts: {
  url: string;
  customerId: string;
  apiKeyId: string;
  clients: number;
  durationS: number;
}): Promise<number | undefined> {
  if (!(await pgbenchAvailable())) return undefined;
  const file = join(mkdtempSync(join(tmpdir(), 'ers-pgbench-')), 'report-write.sql');
  writeFileSync(file, SCRIPT);
  const { stdout } = await run('pgbench', [
    '--no-vacuum',
    '--protocol=prepared',
    `--client=${opts.clients}`,
    '--jobs=2',
    `--time=${opts.durationS}`,
    `--file=${file}`,
    `--define=customer=${opts.customerId}`,
    `--define=apikey=${opts.apiKeyId}`,
    opts.url,
  ]);
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout)?.[1];
  if (tps === undefined) throw new Error(`pgbench printed no tps: ${stdout.slice(-400)}`);
  return Math.round(Number(tps));
}
