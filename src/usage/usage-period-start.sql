-- The UTC calendar month of spec section 8 (R17), as a timestamptz. Immutable because the time
-- zone is a literal, not the session setting, so indexes and the counter's key may use it.
create or replace function usage_period_start(ts timestamptz) returns timestamptz
language sql immutable parallel safe
as $$ select date_trunc('month', ts at time zone 'UTC') at time zone 'UTC' $$;
