// Gemini failures through the whole service (R24): crafted
// answers give their codes; for every failure nothing is stored or counted (the idempotency
// claim released too), and the response names no provider message, model, key or value.
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { ErrorCode } from '../../src/errors/catalogue.ts';
import { client } from '../support/http-client.ts';
import { countCustomerRows, createCustomerFixture } from '../support/database.ts';
import { VALID_REPORT, blockedPromptAnswer, errorAnswer, reportAnswer, startFakeGemini, textAnswer } from '../support/generation/fake-gemini-server.ts';
import type { FakeGeminiAnswer } from '../support/generation/fake-gemini-server.ts';
import { expectCleanLog, geminiEnv, useGeminiRun } from '../support/e2e/gemini-service.ts';
import { startLoggedService } from '../support/e2e/logged-service.ts';
import { errorOf, expectNoInternalDetail } from '../support/e2e/leaks.ts';
import { expectApiError } from '../support/expect-api-error.ts';

const { priority: _priority, ...withoutPriority } = VALID_REPORT;
const { suggestedNextStep: _next, ...withoutNextStep } = VALID_REPORT;

// Words of the crafted answers: none may reach a response or an ordinary log line.
const PROVIDER_WORDS = ['secret provider detail', 'provider says', 'INVALID_ARGUMENT', 'RESOURCE_EXHAUSTED', 'PERMISSION_DENIED', 'gardening', 'fake-gemini-001'];

const CASES: [string, FakeGeminiAnswer, ErrorCode][] = [
  ['an invalid category', reportAnswer({ ...VALID_REPORT, category: 'gardening' }), 'invalid_generated_report'],
  ['confidence 1.5', reportAnswer({ ...VALID_REPORT, confidence: 1.5 }), 'invalid_generated_report'],
  ['confidence -0.1', reportAnswer({ ...VALID_REPORT, confidence: -0.1 }), 'invalid_generated_report'],
  ['a missing field (priority)', reportAnswer(withoutPriority), 'invalid_generated_report'],
  ['a missing nullable field (suggestedNextStep)', reportAnswer(withoutNextStep), 'invalid_generated_report'],
  ['a wrong type (tags as a string)', reportAnswer({ ...VALID_REPORT, tags: 'plumbing' }), 'invalid_generated_report'],
  ['an empty title', reportAnswer({ ...VALID_REPORT, title: '' }), 'invalid_generated_report'],
  ['non-JSON text', textAnswer('Sure! The report: water leak, plumbing, high (secret provider detail).'), 'invalid_generated_report'],
  ['a JSON array instead of an object', textAnswer(JSON.stringify([VALID_REPORT])), 'invalid_generated_report'],
  ['HTTP 500', errorAnswer(500), 'report_generation_unavailable'],
  ['HTTP 503', errorAnswer(503), 'report_generation_unavailable'],
  ['HTTP 429', errorAnswer(429), 'report_generation_unavailable'],
  ['a dropped connection', { kind: 'destroy' }, 'report_generation_unavailable'],
  ['HTTP 400', errorAnswer(400), 'report_generation_failed'],
  ['HTTP 403', errorAnswer(403), 'report_generation_failed'],
  ['a safety block (promptFeedback.blockReason SAFETY)', blockedPromptAnswer('SAFETY'), 'report_generation_failed'],
  ['finishReason SAFETY', textAnswer('', 'SAFETY'), 'report_generation_failed'],
  ['a truncated answer (MAX_TOKENS)', textAnswer('{"title": "Water le', 'MAX_TOKENS'), 'report_generation_failed'],
  ['no candidates', { body: { candidates: [] } }, 'report_generation_failed'],
  ['a 200 that is not the protocol (HTML)', { kind: 'raw', contentType: 'text/html', body: '<html>secret provider detail</html>' }, 'report_generation_failed'],
];

describe('Gemini end to end: every failure class gives its code, stores nothing and says nothing (R24)', function () {
  this.timeout(60_000);
  const suite = useGeminiRun();
  const { customerKeys } = suite;

  for (const [what, answer, code] of CASES) {
    it(`${what} gives ${code}; nothing stored or counted; no provider detail in the response (R24)`, async () => {
      const customer = await createCustomerFixture();
      customerKeys.push(customer.apiKey);
      const before = await countCustomerRows(customer.customerId);
      // Every attempt (the first and a retry) gets the same answer.
      suite.run.gemini.setDefault(answer);
      const res = await client(suite.run.service.url, customer.apiKey).createReport(
        { context: 'property_maintenance', language: 'en', evidence: { text: 'Water is dripping from the kitchen sink.' } },
        { 'Idempotency-Key': randomUUID() },
      );
      expectApiError(res, code);
      expect(errorOf(res).details, 'no details for a generator failure').to.equal(undefined);
      expect(suite.run.gemini.requests.length, 'Gemini was called').to.be.within(1, 2);
      expect(await countCustomerRows(customer.customerId), 'nothing stored, counted or claimed').to.deep.equal(before);
      expectNoInternalDetail(res, [suite.run.model, suite.run.geminiKey, customer.apiKey, ...PROVIDER_WORDS, 'kitchen sink', 'Request data']);
    });
  }

  it('a failure never falls back to another generator: the next good answer is used as given (R25)', async () => {
    const customer = await createCustomerFixture();
    customerKeys.push(customer.apiKey);
    suite.run.gemini.setDefault(errorAnswer(400));
    const api = client(suite.run.service.url, customer.apiKey);
    const failed = await api.createReport({ context: 'property_maintenance', evidence: { text: 'Leak.' } });
    expectApiError(failed, 'report_generation_failed');
    suite.run.gemini.setDefault(reportAnswer());
    const ok = await api.createReport<{ result: unknown }>({ context: 'property_maintenance', evidence: { text: 'Leak.' } });
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body.result).to.deep.equal(VALID_REPORT);
    expect((await countCustomerRows(customer.customerId)).usage_record).to.equal(1);
  });

  it('the log of the run names no key, and no model or provider message in ordinary lines (R26)', () => {
    expectCleanLog(suite.run, customerKeys, PROVIDER_WORDS);
  });
});

// A wrong or revoked GEMINI_API_KEY is Google's 400 INVALID_ARGUMENT, the status of a request the
// model refuses; its ErrorInfo reason API_KEY_INVALID tells the operator to fix the key, both at
// start-up (the model lookup, R42) and on each request's dependency-failure line (R40).
describe('Gemini end to end: a GEMINI_API_KEY Google does not know (R24, R40, R42)', function () {
  this.timeout(60_000);

  it('is 502 report_generation_failed, nothing counted, and the log says api_key_invalid at start-up and per request, never the key', async () => {
    const gemini = await startFakeGemini({ validKeys: ['the-key-google-knows'] });
    const wrongKey = `test-key-not-known-${randomUUID()}`;
    const { service, log } = await startLoggedService(geminiEnv(gemini, wrongKey));
    try {
      const lines = (): Record<string, unknown>[] => log.lines.map((l) => JSON.parse(l.raw) as Record<string, unknown>);
      const lookup = lines().filter((l) => l.msg === 'GEMINI_MODEL lookup could not be made; starting anyway (R42)');
      // One line per model of GEMINI_MODEL (the default and its fallback), each with the reason.
      expect(lookup, log.text()).to.have.length.above(0);
      expect(new Set(lookup.map((l) => l.reason)), log.text()).to.deep.equal(new Set(['api_key_invalid']));

      const customer = await createCustomerFixture();
      const before = await countCustomerRows(customer.customerId);
      const res = await client(service.url, customer.apiKey).createReport(
        { context: 'property_maintenance', evidence: { text: 'Water is dripping from the kitchen sink.' } },
        { 'Idempotency-Key': randomUUID() },
      );
      expectApiError(res, 'report_generation_failed');
      expect(gemini.requests, 'asked once: a key Google refuses is refused by every model (R42)').to.have.lengthOf(1);
      expect(await countCustomerRows(customer.customerId), 'nothing stored, counted or claimed').to.deep.equal(before);
      const failures = lines().filter((l) => l.msg === 'dependency failure');
      expect(failures.map((l) => [l.dependency, l.reason])).to.deep.equal([['generator', 'api_key_invalid']]);
      expectNoInternalDetail(res, [wrongKey, 'API key not valid', 'API_KEY_INVALID']);
      expect(log.text(), 'the key reached the log').not.to.include(wrongKey);
      expect(log.text(), "Google's message reached the log").not.to.include('API key not valid');
    } finally {
      await service.close();
      await gemini.stop();
    }
  });
});
