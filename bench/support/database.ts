// The bench's own PostgreSQL database: created fresh for the run, dropped at the end, and the
// bulk load of the quota-at-scale scenario.
import pg from 'pg';

export interface BenchDatabase {
  readonly name: string;
  readonly url: string;
  readonly serverVersion: string;
  drop(): Promise<void>;
}

export async function createBenchDatabase(adminUrl: string): Promise<BenchDatabase> {
  const name = `ers_bench_${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  let serverVersion: string;
  try {
    serverVersion = (await admin.query<{ server_version: string }>('show server_version')).rows[0]?.server_version ?? '?';
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  let dropped = false;
  return {
    name,
    url: url.toString(),
    serverVersion,
    drop: async () => {
      if (dropped) return;
      dropped = true;
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * `rows` usage records for the customer, spread over the current UTC month up to now, in
 * batches of one statement each: the statement-level trigger adds each batch to usage_counter
 * in the same transaction (R15, R17). Returns the month's counter afterwards.
 */
export async function insertUsageRecords(url: string, customerId: string, rows: number, batches = 4): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const now = new Date();
    const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const perBatch = Math.ceil(rows / batches);
    for (let first = 0; first < rows; first += perBatch) {
      const last = Math.min(rows, first + perBatch) - 1;
      await client.query(
        `insert into usage_record (id, customer_id, operation, units, report_id, occurred_at)
         select gen_random_uuid(), $1::uuid, 'evidence_report', 1, null,
                $2::timestamptz + ($3::timestamptz - $2::timestamptz) * (g::float8 / $4::float8)
         from generate_series($5::int, $6::int) g`,
        [customerId, monthStart, now, rows, first, last],
      );
    }
    // What autovacuum and the checkpointer would do soon after such a load, done now so that
    // they do not run during the measurement that follows.
    await client.query('vacuum (analyze) usage_record');
    await client.query('checkpoint').catch(() => undefined); // needs superuser or pg_checkpoint
    const counter = await client.query<{ used: string }>(
      `select used from usage_counter where customer_id = $1 and operation = 'evidence_report' and period_start = $2`,
      [customerId, monthStart],
    );
    return Number(counter.rows[0]?.used ?? 0);
  } finally {
    await client.end();
  }
}

/** Reports stored so far in the bench database: one per 201 that was not a replay (R15). */
export async function countReports(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>('select count(*) as n from evidence_report');
    return Number(rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}
