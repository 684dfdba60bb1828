-- TRUNCATE of usage_record has no transition table: the totals of an emptied table are empty.
create or replace function usage_counter_clear() returns trigger language plpgsql as $$
begin
  delete from usage_counter;
  return null;
end $$;
