// Issue 11: fewer statements per request, each rule written once.
//
// customer_plan_usage: "the active plan and this month's usage" (rulings R17, R18), the one
// definition that the API (through caller_facts) and the admin `usage show` both call.
//
// caller_facts: step 1 reads in ONE statement the key, its customer's status, the product
// entitlement (step 4's fact) and the active plan with the month's usage (step 6's and GET
// usage's fact). Each later step judges its own fact in the specification's order, so the
// observable order of errors is unchanged. The two facts of later steps are read in blocks of
// their own: when only one of them cannot be read, the statement still answers and says so
// (`*_readable = false`), and that step alone fails closed with its own 503
// (entitlement_check_unavailable, quota_check_unavailable, current_usage_unavailable), as it did
// when each step sent its own statement. A key that is not active, or whose customer is not,
// gets no further reads. Nothing is cached between requests (R21).
//
// record_evidence_report: steps 9 and 10 with the idempotency completion in one statement and
// one transaction (R15), as before, now with named parameters (callers use named notation, so
// no two columns can be swapped by position) and without the product and operation names
// pasted into its body.
//
// rate_limit_counter becomes UNLOGGED: a technical rate limit (R20) can afford to lose its
// windows on a crash or a failover to a standby (they restart empty, at worst one window's
// extra requests), and in exchange its upsert writes no WAL and waits for no flush: one durable
// commit per report is left on the hot path, besides the idempotency claim.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261123000100_one_read_of_caller_facts extends Migration {
  override up(): void {
    this.addSql(`create function customer_plan_usage(p_customer_id uuid, p_operation text, p_period_start timestamptz)
    returns table (monthly_limit int, usage_visible boolean, used bigint)
    language sql stable as $$
      select p.monthly_limit, p.usage_visible, coalesce(u.used, 0)::bigint
      from subscription s
      join plan p on p.code = s.plan_code
      left join usage_counter u
        on u.customer_id = s.customer_id and u.operation = p_operation and u.period_start = p_period_start
      where s.customer_id = p_customer_id and s.status = 'active'
    $$;`);

    this.addSql(`create function caller_facts(p_key_hash text, p_product text, p_operation text, p_period_start timestamptz)
    returns table (api_key_id uuid, customer_id uuid, key_status text, customer_status text,
      entitlement_readable boolean, entitled boolean,
      plan_usage_readable boolean, has_plan boolean, monthly_limit int, usage_visible boolean, used bigint)
    language plpgsql stable as $$
    begin
      select k.id, k.customer_id, k.status, c.status into api_key_id, customer_id, key_status, customer_status
        from api_key k join customer c on c.id = k.customer_id where k.key_hash = p_key_hash;
      if not found then
        return;
      end if;
      if key_status = 'active' and customer_status = 'active' then
        begin
          select coalesce(bool_or(e.active), false) into entitled
            from product_entitlement e where e.customer_id = caller_facts.customer_id and e.product = p_product;
          entitlement_readable := true;
        exception when others then
          entitlement_readable := false;
        end;
        begin
          select f.monthly_limit, f.usage_visible, f.used into monthly_limit, usage_visible, used
            from customer_plan_usage(caller_facts.customer_id, p_operation, p_period_start) f;
          has_plan := found;
          plan_usage_readable := true;
        exception when others then
          plan_usage_readable := false;
        end;
      end if;
      return next;
    end $$;`);

    this.addSql(
      'drop function record_evidence_report(uuid, uuid, uuid, text, text, text, jsonb, jsonb, jsonb, text, text, int, jsonb, timestamptz, uuid, text, timestamptz, timestamptz);',
    );
    // Each write in a block of its own, so that a failure names the write: SQLSTATE ER001
    // (report), ER002 (usage unit), ER003 (the idempotency claim is no longer ours: a takeover
    // after our lease ran out). Any of them aborts the statement: nothing of the attempt remains.
    this.addSql(`create function record_evidence_report(
      p_report_id uuid, p_customer_id uuid, p_api_key_id uuid, p_request_id text, p_context text,
      p_language text, p_input jsonb, p_images jsonb, p_result jsonb, p_generator text, p_model text,
      p_generation_ms int, p_token_usage jsonb, p_at timestamptz,
      p_usage_id uuid, p_operation text, p_units int,
      p_product text, p_idempotency_key text, p_lease_expires_at timestamptz, p_idempotency_expires_at timestamptz)
    returns void language plpgsql as $$
    begin
      begin
        insert into evidence_report (id, customer_id, api_key_id, request_id, context, language, input, images,
          result, generator, model, generation_ms, token_usage, created_at)
        values (p_report_id, p_customer_id, p_api_key_id, p_request_id, p_context, p_language, p_input, p_images,
          p_result, p_generator, p_model, p_generation_ms, p_token_usage, p_at);
      exception when others then
        raise exception 'evidence report write failed' using errcode = 'ER001', detail = sqlstate;
      end;
      begin
        insert into usage_record (id, customer_id, operation, units, report_id, occurred_at)
        values (p_usage_id, p_customer_id, p_operation, p_units, p_report_id, p_at);
      exception when others then
        raise exception 'usage recording failed' using errcode = 'ER002', detail = sqlstate;
      end;
      if p_idempotency_key is not null then
        update idempotency_record
          set status = 'completed', report_id = p_report_id, completed_at = p_at, expires_at = p_idempotency_expires_at
          where customer_id = p_customer_id and product = p_product and operation = p_operation
            and idempotency_key = p_idempotency_key and status = 'in_progress' and lease_expires_at = p_lease_expires_at;
        if not found then
          raise exception 'idempotency claim lost' using errcode = 'ER003';
        end if;
      end if;
    end $$;`);

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
