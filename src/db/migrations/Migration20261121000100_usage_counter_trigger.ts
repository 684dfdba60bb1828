// usage_counter holds the exact monthly total of usage_record per customer and operation
// (rulings R15, R17). Usage records stay the source of truth (spec 2.7); the trigger keeps
// the total in the same transaction as the records, whoever writes them, so the quota check
// reads one row whatever the month's volume. Statement-level triggers with transition
// tables: a bulk insert costs one upsert per (customer, operation, month), not one per row.
// PostgreSQL allows transition tables only on single-event triggers, hence three triggers
// sharing one function (src/usage/usage-counter-sync.sql); TRUNCATE has no transition table and
// clears the totals (src/usage/usage-counter-clear.sql).
import { Migration } from '@mikro-orm/migrations';
import { sqlFunctionText } from '../sql-functions.ts';

export class Migration20261121000100_usage_counter_trigger extends Migration {
  override up(): void {
    this.addSql(sqlFunctionText('usage/usage-period-start.sql'));
    this.addSql(sqlFunctionText('usage/usage-counter-sync.sql'));

    this.addSql(`create trigger usage_counter_after_insert after insert on usage_record
      referencing new table as new_rows for each statement execute function usage_counter_sync();`);
    this.addSql(`create trigger usage_counter_after_update after update on usage_record
      referencing old table as old_rows new table as new_rows for each statement execute function usage_counter_sync();`);
    this.addSql(`create trigger usage_counter_after_delete after delete on usage_record
      referencing old table as old_rows for each statement execute function usage_counter_sync();`);

    this.addSql(sqlFunctionText('usage/usage-counter-clear.sql'));
    this.addSql(`create trigger usage_counter_after_truncate after truncate on usage_record
      for each statement execute function usage_counter_clear();`);
  }

  override down(): void {
    this.addSql('drop trigger if exists usage_counter_after_truncate on usage_record;');
    this.addSql('drop trigger if exists usage_counter_after_delete on usage_record;');
    this.addSql('drop trigger if exists usage_counter_after_update on usage_record;');
    this.addSql('drop trigger if exists usage_counter_after_insert on usage_record;');
    this.addSql('drop function if exists usage_counter_clear();');
    this.addSql('drop function if exists usage_counter_sync();');
    this.addSql('drop function if exists usage_period_start(timestamptz);');
  }
}
