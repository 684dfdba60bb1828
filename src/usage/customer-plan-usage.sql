-- "The active plan and this month's usage" (R17, R18): the one definition that the API (through
-- caller_facts) and the admin command line's `usage show` both call. No active subscription
-- gives no row: the caller has no plan (quota_access_denied, R18).
create or replace function customer_plan_usage(p_customer_id uuid, p_operation text, p_period_start timestamptz, p_mode text)
returns table (monthly_limit int, usage_visible boolean, used bigint)
language sql stable as $$
  select p.monthly_limit, p.usage_visible, coalesce(u.used, 0)::bigint
  from subscription s
  join plan p on p.code = s.plan_code
  left join usage_counter u
    on u.customer_id = s.customer_id and u.operation = p_operation and u.mode = p_mode and u.period_start = p_period_start
  where s.customer_id = p_customer_id and s.status = 'active'
$$;
