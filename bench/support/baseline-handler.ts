// The hand-written reference handler of POST /v1/evidence/reports (the throughput reference), shared by
// the Koa and the Fastify baselines so that the two differ only in their framework. It does only
// what the reference names: an auth lookup by key hash, a quota SUM over the month's
// usage_record rows, and a two-insert transaction (report, usage record). No contract
// validation, no rate limit, no entitlement, no idempotency.
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { deriveOfflineReport } from '../../src/generation/offline-generator.ts';
import type { OperationalContext } from '../../src/generation/report-generator.ts';

const AUTH = `select k.id, k.customer_id from api_key k join customer c on c.id = k.customer_id
  where k.key_hash = $1 and k.status = 'active' and c.status = 'active'`;
const QUOTA = `select p.monthly_limit,
    (select coalesce(sum(u.units), 0) from usage_record u
      where u.customer_id = $1 and u.operation = 'evidence_report' and u.occurred_at >= $2 and u.occurred_at < $3) as used
  from subscription s join plan p on p.code = s.plan_code
  where s.customer_id = $1 and s.status = 'active'`;
const INSERT_REPORT = `insert into evidence_report (id, customer_id, api_key_id, request_id, context, language,
  input, images, result, generator, model, generation_ms, token_usage, created_at)
  values ($1, $2, $3, $4, $5, $6, $7, '[]', $8, 'offline', null, 0, null, $9)`;
const INSERT_USAGE = `insert into usage_record (id, customer_id, operation, units, report_id, occurred_at)
  values ($1, $2, 'evidence_report', 1, $3, $4)`;

const CONTEXTS: readonly OperationalContext[] = [
  'property_maintenance',
  'delivery_confirmation',
  'field_inspection',
  'damage_report',
  'inventory_check',
];

export interface BaselineAnswer {
  status: number;
  body: unknown;
}

const fail = (status: number, code: string): BaselineAnswer => ({ status, body: { error: { code } } });

export function createBaselineHandler(databaseUrl: string | undefined) {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: Number(process.env.DB_POOL_SIZE ?? 10) });
  return {
    /** Authenticates first (a body is only read for a known key), like the service (R5). */
    async createReport(apiKey: string, readBody: () => Promise<string>): Promise<BaselineAnswer> {
      if (apiKey === '') return fail(401, 'missing_api_key');
      const auth = await pool.query<{ id: string; customer_id: string }>(AUTH, [createHash('sha256').update(apiKey).digest('hex')]);
      const principal = auth.rows[0];
      if (!principal) return fail(401, 'invalid_api_key');
      let request: { context?: unknown; language?: unknown; evidence?: { text?: unknown } };
      try {
        request = JSON.parse(await readBody()) as typeof request;
      } catch {
        return fail(400, 'invalid_json');
      }
      if (!CONTEXTS.includes(request.context as OperationalContext) || typeof request.evidence?.text !== 'string') {
        return fail(400, 'invalid_request_payload');
      }
      const now = new Date();
      const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
      const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
      const quota = await pool.query<{ monthly_limit: number; used: string }>(QUOTA, [principal.customer_id, start, end]);
      const plan = quota.rows[0];
      if (!plan) return fail(403, 'quota_access_denied');
      if (Number(plan.used) >= plan.monthly_limit) return fail(429, 'quota_exceeded');

      const language = typeof request.language === 'string' ? request.language : undefined;
      const result = deriveOfflineReport({ context: request.context as OperationalContext, language, text: request.evidence.text, images: [] });
      const id = randomUUID();
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query(INSERT_REPORT, [
          id,
          principal.customer_id,
          principal.id,
          randomUUID(),
          request.context,
          language ?? null,
          JSON.stringify(request),
          JSON.stringify(result),
          now,
        ]);
        await client.query(INSERT_USAGE, [randomUUID(), principal.customer_id, id, now]);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
      return { status: 201, body: { id, status: 'completed', result, usage: { operation: 'evidence_report', units: 1 } } };
    },
    close: () => pool.end(),
  };
}
