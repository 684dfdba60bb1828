// R42 and R24 through the whole service, GEMINI_MODEL listing two models: a connection lost after
// the request may have reached Google (the body cut after the 200, the connection dropped before
// the status) is 503 report_generation_unavailable with no second request, to this model or the
// next: Google may have answered, and billed, already. A 429 whose RetryInfo delay does not fit
// the deadline is not retried on the last model. Nothing is stored or counted either way.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { client } from '../support/http-client.ts';
import { countCustomerRows, createCustomerFixture } from '../support/database.ts';
import { errorAnswer, rateLimitedAnswer } from '../support/generation/fake-gemini-server.ts';
import type { FakeGeminiAnswer } from '../support/generation/fake-gemini-server.ts';
import { expectCleanLog, useGeminiRun } from '../support/e2e/gemini-service.ts';
import { expectApiError } from '../support/expect-api-error.ts';

const PRIMARY = 'gemini-e2e-primary';
const FALLBACK = 'gemini-e2e-fallback';

describe('Gemini end to end: a request that may have been answered is never asked again (R42, R24)', function () {
  this.timeout(60_000);
  const suite = useGeminiRun({ GEMINI_MODEL: `${PRIMARY},${FALLBACK}` });
  const { customerKeys } = suite;

  async function createReport(): Promise<{ status: number; models: (string | undefined)[] }> {
    const customer = await createCustomerFixture();
    customerKeys.push(customer.apiKey);
    const before = await countCustomerRows(customer.customerId);
    const res = await client(suite.run.service.url, customer.apiKey).createReport(
      { context: 'property_maintenance', language: 'en', evidence: { text: 'Water is dripping from the kitchen sink.' } },
      { 'Idempotency-Key': randomUUID() },
    );
    if (res.status !== 201) {
      expectApiError(res, 'report_generation_unavailable');
      expect(await countCustomerRows(customer.customerId), 'nothing stored, counted or claimed').to.deep.equal(before);
    }
    return { status: res.status, models: suite.run.gemini.requests.map((r) => r.model) };
  }

  const lost: [string, FakeGeminiAnswer][] = [
    ['the body cut after the 200', { kind: 'cutBody' }],
    ['the connection dropped after the request arrived', { kind: 'destroy' }],
  ];
  for (const [what, answer] of lost) {
    it(`${what} on the primary: 503, and the fallback is not asked (R42, R24)`, async () => {
      suite.run.gemini.enqueue(answer);
      expect(await createReport()).to.deep.equal({ status: 503, models: [PRIMARY] });
    });

    it(`${what} on the last model: 503, and it is not retried (R42, R24)`, async () => {
      suite.run.gemini.enqueue(errorAnswer(503), answer);
      expect(await createReport()).to.deep.equal({ status: 503, models: [PRIMARY, FALLBACK] });
    });
  }

  it('a 429 whose RetryInfo delay does not fit, on the last model: 503 without a retry (R42)', async () => {
    suite.run.gemini.enqueue(rateLimitedAnswer('30s'), rateLimitedAnswer('30s'));
    expect(await createReport()).to.deep.equal({ status: 503, models: [PRIMARY, FALLBACK] });
  });

  it('a 503 on the primary still goes on to the fallback, whose report is the answer (R42)', async () => {
    suite.run.gemini.enqueue(errorAnswer(503));
    expect(await createReport()).to.deep.equal({ status: 201, models: [PRIMARY, FALLBACK] });
  });

  it('the log of the run names no key (R26)', () => {
    expectCleanLog(suite.run, customerKeys);
  });
});
