// The read port of GET /v1/evidence/reports/{id} (R54): one of the caller's reports, in the
// caller's mode. Adapter: PgReportReader (one statement on the primary key).
import type { Mode } from '../accounts/mode.ts';

export interface ReportOwner {
  readonly customerId: string;
  readonly mode: Mode;
}

export interface ReportReader {
  /**
   * The stored result of report `reportId` when `owner` owns it in that mode; undefined for an
   * unknown id, another customer's report and a report of the other mode alike. Throws
   * PersistenceFailure when the read cannot complete.
   */
  storedResult(reportId: string, owner: ReportOwner): Promise<unknown>;
}
