// What the one log line of a failed dependency names (R26, R40): the dependency is the one that
// failed, read from the cause, where one answer code serves two dependencies.
import { expect } from 'chai';
import { PersistenceFailure } from '../../../src/db/persistence-failure.ts';
import { ApiError } from '../../../src/errors/catalogue.ts';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import { dependencyFailure } from '../../../src/observability/dependency-failure.ts';

describe('dependencyFailure: the dependency and reason of a failed request', () => {
  it('a report read the database could not make answers report_generation_unavailable (R54) but names the database', () => {
    const lost = new PersistenceFailure('unavailable', { cause: new Error('Connection terminated unexpectedly') });
    expect(dependencyFailure(new ApiError('report_generation_unavailable', { cause: lost }))).to.deep.equal({ dependency: 'database', reason: 'connection' });
  });

  it('the same code from the generator names the generator', () => {
    const failure = new GenerationError('unavailable', 'http_503');
    expect(dependencyFailure(new ApiError('report_generation_unavailable', { cause: failure }))).to.deep.equal({ dependency: 'generator', reason: 'http_503' });
  });

  it("a write of record_evidence_report that outlived statement_timeout names the server's reason, not its own ER001 (R15, R33)", () => {
    const server = Object.assign(new Error('evidence report write failed'), { code: 'ER001', detail: '57014' });
    const failure = new PersistenceFailure('report_not_written', { cause: server, sqlState: 'ER001' });
    expect(dependencyFailure(new ApiError('evidence_report_write_failed', { cause: failure }))).to.deep.equal({ dependency: 'database', reason: 'statement_timeout' });
  });

  it('an ER002 whose detail is no SQLSTATE is a database error', () => {
    const server = Object.assign(new Error('usage recording failed'), { code: 'ER002', detail: 'a message' });
    const failure = new PersistenceFailure('usage_not_recorded', { cause: server, sqlState: 'ER002' });
    expect(dependencyFailure(new ApiError('usage_recording_failed', { cause: failure }))).to.deep.equal({ dependency: 'database', reason: 'database_error' });
  });
});
