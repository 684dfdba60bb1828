// usage_counter holds the exact monthly total of usage_record per customer and operation
// (rulings R15, R17). Usage records stay the source of truth (spec 2.7); the trigger keeps
// the total in the same transaction as the records, whoever writes them, so the quota check
// reads one row whatever the month's volume. Statement-level triggers with transition
// tables: a bulk insert costs one upsert per (customer, operation, month), not one per row.
// PostgreSQL allows transition tables only on single-event triggers, hence three triggers
// sharing one function.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261121000100_usage_counter_trigger extends Migration {
  override up(): void {
    // The UTC calendar month of spec section 8, as a timestamptz. Immutable because the time
    // zone is a literal, not the session setting.
    this.addSql(`create function usage_period_start(ts timestamptz) returns timestamptz
      language sql immutable parallel safe
      as $$ select date_trunc('month', ts at time zone 'UTC') at time zone 'UTC' $$;`);

    this.addSql(`create function usage_counter_sync() returns trigger language plpgsql as $$
    begin
      if tg_op in ('UPDATE', 'DELETE') then
        update usage_counter c set used = c.used - d.units
        from (select customer_id, operation, usage_period_start(occurred_at) as period_start, sum(units) as units
              from old_rows group by 1, 2, 3) d
        where c.customer_id = d.customer_id and c.operation = d.operation and c.period_start = d.period_start;
      end if;
      if tg_op in ('INSERT', 'UPDATE') then
        -- ORDER BY: concurrent multi-row writers lock counter rows in one order (no deadlock).
        insert into usage_counter as c (customer_id, operation, period_start, used)
        select customer_id, operation, usage_period_start(occurred_at), sum(units)
        from new_rows group by 1, 2, 3 order by 1, 2, 3
        on conflict (customer_id, operation, period_start) do update set used = c.used + excluded.used;
      end if;
      return null;
    end $$;`);

    this.addSql(`create trigger usage_counter_after_insert after insert on usage_record
      referencing new table as new_rows for each statement execute function usage_counter_sync();`);
    this.addSql(`create trigger usage_counter_after_update after update on usage_record
      referencing old table as old_rows new table as new_rows for each statement execute function usage_counter_sync();`);
    this.addSql(`create trigger usage_counter_after_delete after delete on usage_record
      referencing old table as old_rows for each statement execute function usage_counter_sync();`);

    // TRUNCATE has no transition table: the totals of an emptied table are empty.
    this.addSql(`create function usage_counter_clear() returns trigger language plpgsql as $$
    begin
      delete from usage_counter;
      return null;
    end $$;`);
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
