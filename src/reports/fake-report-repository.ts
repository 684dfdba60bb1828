// An in-memory ReportRepository for unit tests: records what steps 9-10
// would write, completes the claim through the fake idempotency store as the real transaction
// does (R15), and can be told to fail one of its writes.
import { PersistenceFailure, type PersistenceFailureKind } from '../db/persistence-failure.ts';
import type { FakeIdempotencyStore } from '../idempotency/fake-idempotency-store.ts';
import type { ReportRecord, ReportRepository } from './report-repository.ts';

export class FakeReportRepository implements ReportRepository {
  readonly records: ReportRecord[] = [];
  readonly #idempotency: FakeIdempotencyStore | undefined;
  /** The next record() fails with this kind, and writes nothing. */
  failWith: PersistenceFailureKind | undefined;

  constructor(idempotency?: FakeIdempotencyStore) {
    this.#idempotency = idempotency;
  }

  async record(record: ReportRecord): Promise<void> {
    if (this.failWith) throw new PersistenceFailure(this.failWith);
    if (record.idempotency && !this.#idempotency?.complete(record, record.idempotency, record.reportId, record.result)) {
      throw new PersistenceFailure('claim_lost');
    }
    this.records.push(record);
  }
}
