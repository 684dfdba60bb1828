// The ApiKeyDirectory on PostgreSQL: caller_facts is one statement, one round trip, whatever
// the step (Migration20261123000100_one_read_of_caller_facts); the product and operation names
// are parameters, not SQL text.
import { statement, type Sql } from '../db/sql.ts';
import { EVIDENCE_REPORTS_PRODUCT } from '../plans/product-entitlement.entity.ts';
import type { MonthPeriod } from '../usage/period.ts';
import { planUsageFromRow, type PlanUsageRow } from '../usage/plan-usage.ts';
import { EVIDENCE_REPORT_OPERATION } from '../usage/usage-record.entity.ts';
import { readable, unreadable, type ApiKeyDirectory, type CallerFacts } from './api-key-directory.ts';

interface FactsRow extends PlanUsageRow {
  api_key_id: string;
  customer_id: string;
  key_status: string;
  customer_status: string;
  mode: string;
  entitlement_readable: boolean | null;
  entitled: boolean | null;
  plan_usage_readable: boolean | null;
  has_plan: boolean | null;
}

const CALLER_FACTS = statement('caller_facts', 'select * from caller_facts($1, $2, $3, $4)');

// Ruling R32: the condition keeps several instances from writing more often than once a minute.
const RECORD_USE = statement(
  'api_key_record_use',
  `update api_key set last_used_at = $1 where id = $2
  and (last_used_at is null or last_used_at < $1::timestamptz - interval '1 minute')`,
);

export class PgApiKeyDirectory implements ApiKeyDirectory {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async callerFacts(keyHash: string, period: MonthPeriod): Promise<CallerFacts | undefined> {
    const [row] = await this.#sql.rows<FactsRow>(CALLER_FACTS, [
      keyHash,
      EVIDENCE_REPORTS_PRODUCT,
      EVIDENCE_REPORT_OPERATION,
      period.startsAt.toISOString(),
    ]);
    if (!row) return undefined;
    return {
      apiKeyId: row.api_key_id,
      customerId: row.customer_id,
      keyActive: row.key_status === 'active',
      customerActive: row.customer_status === 'active',
      mode: row.mode === 'test' ? 'test' : 'live',
      entitled: row.entitlement_readable ? readable(row.entitled === true) : unreadable,
      planUsage: row.plan_usage_readable ? readable(row.has_plan ? planUsageFromRow(row) : null) : unreadable,
    };
  }

  async recordUse(apiKeyId: string, at: Date): Promise<void> {
    await this.#sql.count(RECORD_USE, [at.toISOString(), apiKeyId]);
  }
}
