-- Steps 9 and 10 with the idempotency completion in ONE statement, so one transaction (R15): the
-- report, its usage unit (the usage_counter trigger runs inside it) and the key's completion.
-- Callers use named notation, so no two columns can be swapped by position. Each write sits in
-- a block of its own so that a failure names the write: SQLSTATE ER001 (report), ER002 (usage
-- unit), ER003 (the idempotency claim is no longer ours: a takeover after our lease ran out).
-- Any of them aborts the statement: nothing of the attempt remains. The blocks trap
-- query_canceled by name as well: OTHERS does not match it, and a write that outlives
-- statement_timeout (waiting on a lock, say) is still that write's failure (R15); the error is
-- raised again at once, so the cancel still ends the statement. The original SQLSTATE is the
-- error's detail (a log's reason, src/observability/dependency-failure.ts).
create or replace function record_evidence_report(
  p_report_id uuid, p_customer_id uuid, p_api_key_id uuid, p_request_id text, p_context text,
  p_language text, p_input jsonb, p_images jsonb, p_result jsonb, p_generator text, p_model text,
  p_generation_ms int, p_token_usage jsonb, p_at timestamptz,
  p_usage_id uuid, p_operation text, p_units int,
  p_product text, p_idempotency_key text, p_lease_expires_at timestamptz, p_idempotency_expires_at timestamptz,
  p_tokens_input int, p_tokens_output int, p_tokens_thinking int, p_mode text default 'live')
returns void language plpgsql as $$
begin
  begin
    insert into evidence_report (id, customer_id, api_key_id, request_id, context, language, input, images,
      result, generator, model, generation_ms, token_usage, tokens_input, tokens_output, tokens_thinking, created_at, mode)
    values (p_report_id, p_customer_id, p_api_key_id, p_request_id, p_context, p_language, p_input, p_images,
      p_result, p_generator, p_model, p_generation_ms, p_token_usage, p_tokens_input, p_tokens_output, p_tokens_thinking,
      p_at, p_mode);
  exception when others or query_canceled then
    raise exception 'evidence report write failed' using errcode = 'ER001', detail = sqlstate;
  end;
  begin
    insert into usage_record (id, customer_id, operation, units, report_id, occurred_at, mode)
    values (p_usage_id, p_customer_id, p_operation, p_units, p_report_id, p_at, p_mode);
  exception when others or query_canceled then
    raise exception 'usage recording failed' using errcode = 'ER002', detail = sqlstate;
  end;
  if p_idempotency_key is not null then
    update idempotency_record
      set status = 'completed', report_id = p_report_id, completed_at = p_at, expires_at = p_idempotency_expires_at
      where customer_id = p_customer_id and product = p_product and operation = p_operation and mode = p_mode
        and idempotency_key = p_idempotency_key and status = 'in_progress' and lease_expires_at = p_lease_expires_at;
    if not found then
      raise exception 'idempotency claim lost' using errcode = 'ER003';
    end if;
  end if;
end $$;
