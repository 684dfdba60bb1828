// The suite's own contract check (test/support/contract-validator.ts) reads every answer any test
// sees. Its rules are checked here on made-up answers, so that a rule that stopped working could
// not pass the whole suite silently: a header the service sends must be declared on the answer
// that carries it (R53's ers-mode among them), and an answer to a templated path
// (/v1/evidence/reports/{id}, R54) is judged against that operation.
import { expect } from 'chai';
import { contractViolations } from '../../support/contract-validator.ts';

const R9 = { 'x-request-id': 'b5a5851a-7d1f-47e9-8273-299e1bb637db', 'cache-control': 'no-store' };
const notFound = { error: { code: 'evidence_report_not_found', message: 'The evidence report was not found.', requestId: R9['x-request-id'] } };

describe('the suite\'s contract check can fail', () => {
  it('an undeclared header is a violation; a declared one (ers-mode, R53) and HTTP\'s own are not', () => {
    const answer = (headers: Record<string, string>) =>
      contractViolations({ method: 'GET', path: '/v1/evidence/reports/abc', status: 404, headers: { ...R9, 'content-type': 'application/json', ...headers }, body: notFound });
    expect(answer({})).to.deep.equal([]);
    expect(answer({ 'ers-mode': 'test' })).to.deep.equal([]);
    expect(answer({ 'x-debug-node': 'ers-1' })).to.deep.equal(['header x-debug-node is sent but not declared on 404']);
  });

  it('an answer to a templated path is judged against its operation: a status it does not list is a violation (R54)', () => {
    const problems = contractViolations({ method: 'GET', path: '/v1/evidence/reports/abc', status: 409, headers: R9, body: notFound });
    expect(problems).to.deep.equal(['status 409 is not documented for GET /v1/evidence/reports/abc']);
  });
});
