// Fewer statements per request, each rule written once: step 1's one read of the caller's facts
// (src/accounts/caller-facts.sql), the plan and the month's usage (src/usage/customer-plan-usage.sql)
// and steps 9-10 with named parameters (src/reports/record-evidence-report.sql). The functions'
// texts are their domain files (src/db/sql-functions.ts).
//
// rate_limit_counter becomes UNLOGGED: a technical rate limit (R20) can afford to lose its
// windows on a crash or a failover to a standby (they restart empty, at worst one window's
// extra requests), and in exchange its upsert writes no WAL and waits for no flush: one durable
// commit per report is left on the hot path, besides the idempotency claim.
import { Migration } from '@mikro-orm/migrations';
import { sqlFunctionText } from '../sql-functions.ts';

export class Migration20261123000100_one_read_of_caller_facts extends Migration {
  override up(): void {
    this.addSql(sqlFunctionText('usage/customer-plan-usage.sql'));
    this.addSql(sqlFunctionText('accounts/caller-facts.sql'));
    // The earlier record_evidence_report took the product and operation as literals in its body.
    this.addSql(
      'drop function if exists record_evidence_report(uuid, uuid, uuid, text, text, text, jsonb, jsonb, jsonb, text, text, int, jsonb, timestamptz, uuid, text, timestamptz, timestamptz);',
    );
    this.addSql(sqlFunctionText('reports/record-evidence-report.sql'));

    this.addSql('alter table "rate_limit_counter" set unlogged;');
  }

  override down(): void {
    this.addSql('alter table "rate_limit_counter" set logged;');
    this.addSql(
      'drop function if exists record_evidence_report(uuid, uuid, uuid, text, text, text, jsonb, jsonb, jsonb, text, text, int, jsonb, timestamptz, uuid, text, int, text, text, timestamptz, timestamptz);',
    );
    this.addSql('drop function if exists caller_facts(text, text, text, timestamptz);');
    this.addSql('drop function if exists customer_plan_usage(uuid, text, timestamptz);');
  }
}
