// Test mode (R53) and reading a report back (R54).
//
// A `mode` column ('live' or 'test') on api_key, evidence_report, usage_record, usage_counter
// and idempotency_record. Every existing row is live (the column's default), so nothing
// changes for live traffic. What test traffic writes is kept apart:
// - the usage ledger: usage_counter is keyed by (customer, operation, mode, month), and the
//   trigger that keeps it exact groups by mode, so a test unit never counts against the live
//   quota (and the test ledger is judged against the same plan's limit);
// - the idempotency namespace: mode is part of idempotency_record's primary key, so a test key
//   and a live key of one customer never see each other's Idempotency-Keys;
// - reports: evidence_report.mode, read back only in the caller's mode (R54). The read is one
//   statement on the primary key (id), whatever the case, so an unknown id, another customer's
//   and the other mode's cost the same.
//
// The SQL functions that judge or write usage take the mode:
// - customer_plan_usage(customer, operation, period_start, mode);
// - caller_facts returns the key's mode and reads the ledger of that mode (still one statement);
// - record_evidence_report gains p_mode (named notation, default 'live'), written on the report
//   and its usage unit, and used to complete the idempotency claim of that mode.
import { Migration } from '@mikro-orm/migrations';
import { dropFunctionOverloads, sqlFunctionText } from '../sql-functions.ts';

const MODE_COLUMN = (table: string) =>
  `alter table "${table}" add column "mode" text not null default 'live' constraint "${table}_mode_check" check ("mode" in ('live', 'test'));`;

export class Migration20261124000400_test_mode extends Migration {
  override up(): void {
    for (const table of ['api_key', 'evidence_report', 'usage_record', 'usage_counter', 'idempotency_record']) {
      this.addSql(MODE_COLUMN(table));
    }
    this.addSql('alter table "usage_counter" drop constraint "usage_counter_pkey";');
    this.addSql('alter table "usage_counter" add constraint "usage_counter_pkey" primary key ("customer_id", "operation", "mode", "period_start");');
    this.addSql('alter table "idempotency_record" drop constraint "idempotency_record_pkey";');
    this.addSql(
      'alter table "idempotency_record" add constraint "idempotency_record_pkey" primary key ("customer_id", "product", "operation", "mode", "idempotency_key");',
    );

    // The functions that judge or write usage take the mode; their texts are their domain files.
    // Signatures that change are dropped first (create or replace cannot change them; on a fresh
    // database the earlier migrations already loaded today's texts, hence `if exists`).
    this.addSql(sqlFunctionText('usage/usage-counter-sync.sql'));
    this.addSql('drop function if exists customer_plan_usage(uuid, text, timestamptz);');
    this.addSql(sqlFunctionText('usage/customer-plan-usage.sql'));
    this.addSql('drop function if exists caller_facts(text, text, text, timestamptz);');
    this.addSql(sqlFunctionText('accounts/caller-facts.sql'));
    this.addSql(dropFunctionOverloads('record_evidence_report'));
    this.addSql(sqlFunctionText('reports/record-evidence-report.sql'));
  }

  override down(): void {
    // The functions' files hold only today's texts (src/db/sql-functions.ts), so this step is
    // not undone in place: restore a backup, or migrate a new database with the code of that time.
    throw new Error('Migration20261124000400_test_mode cannot be reverted in place');
  }
}
