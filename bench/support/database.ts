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

/** Now and the start of its UTC month: the span the bulk loads spread their rows over. */
function monthSoFar(): { now: Date; monthStart: Date } {
  const now = new Date();
  return { now, monthStart: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)) };
}

/** Runs `load` for rows 0..rows-1 in `batches` consecutive ranges [first, last], one after another. */
async function inBatches(rows: number, batches: number, load: (first: number, last: number) => Promise<unknown>): Promise<void> {
  const perBatch = Math.ceil(rows / batches);
  for (let first = 0; first < rows; first += perBatch) {
    await load(first, Math.min(rows, first + perBatch) - 1);
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

/**
 * `rows` stored reports of one customer and key, each with its usage unit in the current month
 * (R15), as steps 9-10 would leave them, in `batches` statements; returns one report's id from
 * the middle, for GET /v1/evidence/reports/{id} (R54).
 */
/** The month's total of one customer's live usage, as the counter row says (R17). */
export async function usageCounterOf(url: string, customerId: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { monthStart } = monthSoFar();
    const counter = await client.query<{ used: string }>(
      `select used from usage_counter where customer_id = $1 and operation = 'evidence_report' and mode = 'live' and period_start = $2`,
      [customerId, monthStart],
    );
    return Number(counter.rows[0]?.used ?? 0);
  } finally {
    await client.end();
  }
}

export async function insertReports(url: string, customerId: string, apiKeyId: string, rows: number, batches = 10): Promise<string> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const result = JSON.stringify({
    title: 'Leak under the sink',
    description: 'Water is dripping from the trap under the kitchen sink.',
    category: 'plumbing',
    priority: 'medium',
    suggestedNextStep: null,
    tags: ['leak'],
    riskFlags: [],
    confidence: 0.7,
  });
  try {
    const { now, monthStart } = monthSoFar();
    await inBatches(rows, batches, (first, last) =>
      client.query(
        `with r as (
           insert into evidence_report (id, customer_id, api_key_id, request_id, context, language, input, images, result,
             generator, model, generation_ms, token_usage, created_at)
           select gen_random_uuid(), $1::uuid, $2::uuid, 'bench', 'property_maintenance', null, '{}'::jsonb, '[]'::jsonb, $3::jsonb,
                  'offline', null, 0, null, $4::timestamptz + ($5::timestamptz - $4::timestamptz) * (g::float8 / $6::float8)
           from generate_series($7::int, $8::int) g
           returning id, created_at)
         insert into usage_record (id, customer_id, operation, units, report_id, occurred_at)
         select gen_random_uuid(), $1::uuid, 'evidence_report', 1, r.id, r.created_at from r`,
        [customerId, apiKeyId, result, monthStart, now, rows, first, last],
      ),
    );
    await client.query('vacuum (analyze) evidence_report');
    await client.query('vacuum (analyze) usage_record');
    await client.query('checkpoint').catch(() => undefined);
    const middle = await client.query<{ id: string }>('select id from evidence_report where customer_id = $1 order by created_at offset $2 limit 1', [
      customerId,
      Math.floor(rows / 2),
    ]);
    const id = middle.rows[0]?.id;
    if (id === undefined) throw new Error('no report was inserted');
    return id;
  } finally {
    await client.end();
  }
}
