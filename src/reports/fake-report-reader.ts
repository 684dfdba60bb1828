// An in-memory ReportReader for unit tests: the reports a FakeReportRepository recorded, each
// readable by its owner in its mode only (R54); a switch makes reads fail as an unreachable
// database would.
import { PersistenceFailure } from '../db/persistence-failure.ts';
import type { FakeReportRepository } from './fake-report-repository.ts';
import type { ReportOwner, ReportReader } from './report-reader.ts';

export class FakeReportReader implements ReportReader {
  readonly #reports: FakeReportRepository;
  unavailable = false;

  constructor(reports: FakeReportRepository) {
    this.#reports = reports;
  }

  async storedResult(reportId: string, owner: ReportOwner): Promise<unknown> {
    if (this.unavailable) throw new PersistenceFailure('unavailable');
    const record = this.#reports.records.find((r) => r.reportId === reportId && r.customerId === owner.customerId && r.mode === owner.mode);
    return record?.result;
  }
}
