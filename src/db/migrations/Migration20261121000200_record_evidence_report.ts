// Steps 9 and 10 of report creation in ONE round trip (ruling R15, issue 6 "fewer round trips
// win"): the report, its usage unit and the idempotency completion are one statement, so one
// transaction, and the usage_counter trigger runs inside it. Each write sits in its own block
// so that a failure says which write failed: SQLSTATE ER001 (report), ER002 (usage unit),
// ER003 (the idempotency claim is no longer ours: a takeover after our lease ran out). Any of
// them aborts the statement, so nothing of the attempt remains.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261121000200_record_evidence_report extends Migration {
  override up(): void {
    this.addSql(`create function record_evidence_report(
      p_report_id uuid, p_customer_id uuid, p_api_key_id uuid, p_request_id text, p_context text,
      p_language text, p_input jsonb, p_images jsonb, p_result jsonb, p_generator text, p_model text,
      p_generation_ms int, p_token_usage jsonb, p_at timestamptz, p_usage_id uuid,
      p_idempotency_key text, p_lease_expires_at timestamptz, p_idempotency_expires_at timestamptz)
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
        values (p_usage_id, p_customer_id, 'evidence_report', 1, p_report_id, p_at);
      exception when others then
        raise exception 'usage recording failed' using errcode = 'ER002', detail = sqlstate;
      end;
      if p_idempotency_key is not null then
        update idempotency_record
          set status = 'completed', report_id = p_report_id, completed_at = p_at, expires_at = p_idempotency_expires_at
          where customer_id = p_customer_id and product = 'evidence_reports' and operation = 'evidence_report'
            and idempotency_key = p_idempotency_key and status = 'in_progress' and lease_expires_at = p_lease_expires_at;
        if not found then
          raise exception 'idempotency claim lost' using errcode = 'ER003';
        end if;
      end if;
    end $$;`);
  }

  override down(): void {
    this.addSql('drop function if exists record_evidence_report(uuid, uuid, uuid, text, text, text, jsonb, jsonb, jsonb, text, text, int, jsonb, timestamptz, uuid, text, timestamptz, timestamptz);');
  }
}
