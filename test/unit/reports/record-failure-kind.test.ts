// Steps 9-10 (R15): which 503 a failed record_evidence_report statement gives. A statement that
// never ran (no connection, the login refused, the server shutting down or starting) wrote
// nothing: step 9's evidence_report_write_failed. The function's own blocks name their write;
// a failure after them, at commit, is usage_recording_failed (R15 counts the commit as usage).
import { expect } from 'chai';
import { failureKind } from '../../../src/reports/pg-report-repository.ts';

describe('record_evidence_report: the failure kind of each SQLSTATE (R15)', () => {
  const cases: [sqlState: string | undefined, kind: string][] = [
    [undefined, 'unavailable'],
    ['08006', 'unavailable'],
    ['28P01', 'unavailable'],
    ['3D000', 'unavailable'],
    ['53300', 'unavailable'],
    ['57P01', 'unavailable'],
    ['57P02', 'unavailable'],
    ['57P03', 'unavailable'],
    ['ER001', 'report_not_written'],
    ['ER002', 'usage_not_recorded'],
    ['ER003', 'claim_lost'],
    ['40001', 'usage_not_recorded'],
    ['53100', 'usage_not_recorded'],
    ['57014', 'usage_not_recorded'],
  ];
  for (const [sqlState, kind] of cases) {
    it(`${sqlState ?? 'no SQLSTATE'} is ${kind}`, () => {
      expect(failureKind({ sqlState })).to.equal(kind);
    });
  }
});
