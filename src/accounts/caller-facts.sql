-- Step 1 reads in ONE statement the key, its customer's status, the product entitlement (step 4's
-- fact) and the active plan with the month's usage (step 6's and GET usage's fact). Each later
-- step judges its own fact in the specification's order, so the observable order of errors is
-- the specification's. The facts of later steps are read in blocks of their own: when only one
-- of them cannot be read, the statement still answers and says so (`*_readable = false`), and
-- that step alone fails closed with its own 503 (entitlement_check_unavailable,
-- quota_check_unavailable, current_usage_unavailable). A key that is not active, or whose
-- customer is not, gets no further reads. Nothing is cached between requests (R21).
-- The blocks trap query_canceled by name as well (OTHERS does not match it): a fact whose read
-- outlives statement_timeout (a table locked by another session) is a fact that cannot be read,
-- that step's 503, not authentication's. Nothing is read after the cancel, so the statement
-- still ends at once.
-- key_hash is char(64): compared with the text parameter as it is, PostgreSQL would cast the
-- column to text and scan the whole table for every key (junk keys of the right shape included,
-- R51); cast to the column's type, the lookup is one probe of its unique index.
create or replace function caller_facts(p_key_hash text, p_product text, p_operation text, p_period_start timestamptz)
returns table (api_key_id uuid, customer_id uuid, key_status text, customer_status text, mode text,
  entitlement_readable boolean, entitled boolean,
  plan_usage_readable boolean, has_plan boolean, monthly_limit int, usage_visible boolean, used bigint)
language plpgsql stable as $$
begin
  select k.id, k.customer_id, k.status, c.status, k.mode into api_key_id, customer_id, key_status, customer_status, mode
    from api_key k join customer c on c.id = k.customer_id where k.key_hash = p_key_hash::bpchar;
  if not found then
    return;
  end if;
  if key_status = 'active' and customer_status = 'active' then
    begin
      select coalesce(bool_or(e.active), false) into entitled
        from product_entitlement e where e.customer_id = caller_facts.customer_id and e.product = p_product;
      entitlement_readable := true;
    exception when others or query_canceled then
      entitlement_readable := false;
    end;
    begin
      select f.monthly_limit, f.usage_visible, f.used into monthly_limit, usage_visible, used
        from customer_plan_usage(caller_facts.customer_id, p_operation, p_period_start, caller_facts.mode) f;
      has_plan := found;
      plan_usage_readable := true;
    exception when others or query_canceled then
      plan_usage_readable := false;
    end;
  end if;
  return next;
end $$;
