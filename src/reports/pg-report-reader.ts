// R54 on PostgreSQL: one statement on evidence_report's primary key, whatever the case. The
// customer and the mode are conditions of that same statement, so an unknown id, another
// customer's report and a report of the other mode cost the same index probe and get the same
// empty answer: an id cannot be probed by the status, the body or the time of the 404.
import { statement, type Sql } from '../db/sql.ts';
import { isCanonicalUuid } from '../db/uuid.ts';
import type { ReportOwner, ReportReader } from './report-reader.ts';

const READ = statement('evidence_report_read', 'select result from evidence_report where id = $1 and customer_id = $2 and mode = $3');

/**
 * An id names a report only as the 201 wrote it, a lower-case UUID: anything else (another
 * spelling of the same UUID included) names no report, and is looked up as the nil UUID, which
 * none has.
 */
const NO_REPORT = '00000000-0000-0000-0000-000000000000';

export class PgReportReader implements ReportReader {
  readonly #sql: Sql;

  constructor(sql: Sql) {
    this.#sql = sql;
  }

  async storedResult(reportId: string, owner: ReportOwner): Promise<unknown> {
    const id = isCanonicalUuid(reportId) ? reportId : NO_REPORT;
    const [row] = await this.#sql.rows<{ result: unknown }>(READ, [id, owner.customerId, owner.mode]);
    return row?.result;
  }
}
