// Steps 9 and 10 of report creation in ONE round trip (R15): the report, its usage unit and the
// idempotency completion are one statement, so one transaction (src/reports/record-evidence-report.sql).
import { Migration } from '@mikro-orm/migrations';
import { sqlFunctionText } from '../sql-functions.ts';

export class Migration20261121000200_record_evidence_report extends Migration {
  override up(): void {
    // Its first text took the product and operation as literals; the domain file holds today's
    // (src/reports/record-evidence-report.sql), which the next migrations load again.
    this.addSql(sqlFunctionText('reports/record-evidence-report.sql'));
  }

  override down(): void {
    this.addSql('drop function if exists record_evidence_report;');
  }
}
