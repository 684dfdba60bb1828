// A replay is rebuilt from the stored report (ruling R13: the original 201 body, field by
// field from the report's result), so idempotency_record.response was never written: drop it
// rather than keep a second copy of each report that could drift from the first.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261121000300_idempotency_drop_response extends Migration {
  override up(): void {
    this.addSql('alter table "idempotency_record" drop column "response";');
  }

  override down(): void {
    this.addSql('alter table "idempotency_record" add column "response" jsonb null;');
  }
}
