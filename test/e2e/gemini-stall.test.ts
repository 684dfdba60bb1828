// A Gemini that stalls is cut at GENERATOR_TIMEOUT_MS through the whole service (bounded
// time, R24): 503 report_generation_unavailable within a generous bound, nothing stored or
// counted, nothing internal said. Both a silent server and an answer that stops mid-body.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { client } from '../support/http-client.ts';
import { countCustomerRows, createCustomerFixture } from '../support/database.ts';
import type { FakeGeminiAnswer } from '../support/generation/fake-gemini-server.ts';
import { GENERATOR_TIMEOUT_MS, expectCleanLog, useGeminiRun } from '../support/e2e/gemini-service.ts';
import { expectNoInternalDetail } from '../support/e2e/leaks.ts';
import { expectApiError } from '../support/expect-api-error.ts';

// Far above the 1.5 s limit, far below the test timeout: proves the cut, not a speed.
const GENEROUS_BOUND_MS = GENERATOR_TIMEOUT_MS + 6_000;

describe('Gemini end to end: a stall past GENERATOR_TIMEOUT_MS gives 503 within a bound (R24)', function () {
  this.timeout(30_000);
  const suite = useGeminiRun();
  const { customerKeys } = suite;

  const stalls: [string, FakeGeminiAnswer][] = [
    ['no answer at all', { kind: 'stall' }],
    ['headers, then a body that never ends', { kind: 'stallBody' }],
  ];
  for (const [what, answer] of stalls) {
    it(`${what}: 503 report_generation_unavailable, nothing stored or counted (R24)`, async () => {
      const customer = await createCustomerFixture();
      customerKeys.push(customer.apiKey);
      const before = await countCustomerRows(customer.customerId);
      suite.run.gemini.setDefault(answer);
      const started = performance.now();
      const res = await client(suite.run.service.url, customer.apiKey).createReport(
        { context: 'damage_report', evidence: { text: 'Broken glass door at the entrance.' } },
        { 'Idempotency-Key': randomUUID() },
      );
      const elapsed = performance.now() - started;
      expectApiError(res, 'report_generation_unavailable');
      expect(elapsed, 'answered within the generous bound').to.be.below(GENEROUS_BOUND_MS);
      expect(suite.run.gemini.requests.length).to.be.within(1, 2);
      expect(await countCustomerRows(customer.customerId)).to.deep.equal(before);
      expectNoInternalDetail(res, [suite.run.model, suite.run.geminiKey, customer.apiKey]);
    });
  }

  it('the log of the run names no key, and no model in ordinary lines (R26)', () => {
    expectCleanLog(suite.run, customerKeys);
  });
});
