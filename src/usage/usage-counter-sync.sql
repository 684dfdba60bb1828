-- usage_counter holds the exact monthly total of usage_record per customer, operation and mode
-- (R15, R17, R53). Usage records stay the source of truth (spec 2.7); the triggers on usage_record (created
-- by a migration: DDL on a table) call this function in the same transaction as the records,
-- whoever writes them, so the quota check reads one row whatever the month's volume.
-- Statement-level with transition tables: a bulk insert costs one upsert per (customer,
-- operation, month), not one per row.
create or replace function usage_counter_sync() returns trigger language plpgsql as $$
begin
  if tg_op in ('UPDATE', 'DELETE') then
    update usage_counter c set used = c.used - d.units
    from (select customer_id, operation, mode, usage_period_start(occurred_at) as period_start, sum(units) as units
          from old_rows group by 1, 2, 3, 4) d
    where c.customer_id = d.customer_id and c.operation = d.operation and c.mode = d.mode and c.period_start = d.period_start;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    -- ORDER BY: concurrent multi-row writers lock counter rows in one order (no deadlock).
    insert into usage_counter as c (customer_id, operation, mode, period_start, used)
    select customer_id, operation, mode, usage_period_start(occurred_at), sum(units)
    from new_rows group by 1, 2, 3, 4 order by 1, 2, 3, 4
    on conflict (customer_id, operation, mode, period_start) do update set used = c.used + excluded.used;
  end if;
  return null;
end $$;
