// Ruling R36: the periodic sweep deletes completed idempotency records past their retention
// (found through idempotency_record_expires_at_index) and abandoned claims past their lease.
// Claims in progress are few at any moment, so a partial index on their lease keeps that half
// of the sweep an index scan however large the table is.
import { Migration } from '@mikro-orm/migrations';

export class Migration20261123000000_sweep_indexes extends Migration {
  override up(): void {
    this.addSql(
      `create index "idempotency_record_claim_lease_index" on "idempotency_record" ("lease_expires_at") where status = 'in_progress';`,
    );
  }

  override down(): void {
    this.addSql('drop index if exists "idempotency_record_claim_lease_index";');
  }
}
