// Step 8 through the real app (spec 2.3, rulings R24, R25): generator failures map to 503
// report_generation_unavailable, 502 report_generation_failed or 502 invalid_generated_report; a
// candidate the contract cannot represent is never stored or shown; extra fields are dropped.
// A failed generation stores nothing and gives the key back (R14); an unexpected error is a 500.
import { expect } from 'chai';
import { FakeReportGenerator, SAMPLE_REPORT } from '../../../src/generation/fake-report-generator.ts';
import type { ReportGenerator } from '../../../src/generation/report-generator.ts';
import { testEm } from '../../support/database.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, customerTotals, isReplay, SwappableGenerator, type CreatedReport } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const { confidence: _omitted, ...withoutConfidence } = SAMPLE_REPORT;

const INVALID_CANDIDATES: [string, unknown][] = [
  ['a category the contract cannot represent', { ...SAMPLE_REPORT, category: 'teleportation_fault' }],
  ['an unknown priority', { ...SAMPLE_REPORT, priority: 'whenever' }],
  ['confidence 2', { ...SAMPLE_REPORT, confidence: 2 }],
  ['confidence -0.1', { ...SAMPLE_REPORT, confidence: -0.1 }],
  ['a missing field (confidence)', withoutConfidence],
  ['a wrong type (tags as a string)', { ...SAMPLE_REPORT, tags: 'plumbing' }],
  ['an empty title', { ...SAMPLE_REPORT, title: '' }],
  ['not an object', 'Water leak, plumbing, high'],
  ['null', null],
];

describe('POST /v1/evidence/reports: generation failures and invalid output (R24)', () => {
  const generator = new SwappableGenerator(new FakeReportGenerator());
  let key = 0;

  const app = useService({}, { generator });

  /** The fault gives its code; then, with a healthy generator, the same key makes one report. */
  async function failsThenRecovers(fault: FakeReportGenerator, code: Parameters<typeof expectApiError>[1]): Promise<string> {
    const idempotencyKey = `gen-${++key}`;
    generator.current = fault;
    const res = await app.client.create(bodyNumber(key), { headers: { 'idempotency-key': idempotencyKey } });
    expectApiError(res, code);
    expect(fault.callCount).to.equal(1);
    expect((await customerTotals(app.client.customerId)).claims).to.equal(0);
    generator.current = new FakeReportGenerator();
    expect((await app.client.create(bodyNumber(key), { headers: { 'idempotency-key': idempotencyKey } })).status).to.equal(201);
    return res.text;
  }

  for (const reason of ['unreachable', 'timeout', 'http_429']) {
    it(`a generator that is ${reason} is 503 report_generation_unavailable (R24)`, async () => {
      await failsThenRecovers(new FakeReportGenerator({ error: { kind: 'unavailable', reason } }), 'report_generation_unavailable');
    });
  }

  for (const reason of ['safety_block', 'refused', 'http_400']) {
    it(`a ${reason} answer is 502 report_generation_failed (R24)`, async () => {
      await failsThenRecovers(new FakeReportGenerator({ error: { kind: 'failed', reason } }), 'report_generation_failed');
    });
  }

  it('an answer that is not a report is 502 invalid_generated_report (R24)', async () => {
    await failsThenRecovers(new FakeReportGenerator({ error: { kind: 'invalid', reason: 'not json' } }), 'invalid_generated_report');
  });

  for (const [name, candidate] of INVALID_CANDIDATES) {
    it(`a candidate with ${name} is 502 invalid_generated_report and is never shown (spec 2.3, R24)`, async () => {
      const text = await failsThenRecovers(new FakeReportGenerator({ candidate }), 'invalid_generated_report');
      expect(text).not.to.match(/teleportation_fault|whenever/);
    });
  }

  it('an unexpected generator error is 500 internal_error with the fixed message and nothing of the error (spec section 7)', async () => {
    const broken: ReportGenerator = {
      generate: async () => {
        throw new TypeError('Cannot read properties of undefined (reading "candidates") at adapter.ts:42');
      },
    };
    generator.current = broken;
    const res = await app.client.create(bodyNumber(200), { headers: { 'idempotency-key': 'unexpected' } });
    expectApiError(res, 'internal_error');
    expect(res.text).not.to.match(/candidates|adapter\.ts|TypeError/);
    expect((await customerTotals(app.client.customerId)).claims).to.equal(0);
    generator.current = new FakeReportGenerator();
    expect((await app.client.create(bodyNumber(200), { headers: { 'idempotency-key': 'unexpected' } })).status).to.equal(201);
  });

  it('extra fields of a candidate are dropped: neither the 201 nor its replay nor the stored result has them (R24)', async () => {
    generator.current = new FakeReportGenerator({ candidate: { ...SAMPLE_REPORT, internalScore: 17, prompt: 'secret prompt' } });
    const res = await app.client.create<CreatedReport>(bodyNumber(100), { headers: { 'idempotency-key': 'extras' } });
    expect(res.status).to.equal(201);
    expect(res.body.result).to.deep.equal({ ...SAMPLE_REPORT });
    expect(Object.keys(res.body).sort()).to.deep.equal(['id', 'result', 'status', 'usage']);
    expect(res.body).to.include({ status: 'completed' });
    expect(res.body.usage).to.deep.equal({ operation: 'evidence_report', units: 1 });
    const replay = await app.client.create<CreatedReport>(bodyNumber(100), { headers: { 'idempotency-key': 'extras' } });
    expect(isReplay(replay)).to.equal(true);
    expect(replay.body).to.deep.equal(res.body);
    const [row] = await (await testEm()).execute<{ result: Record<string, unknown> }[]>('select result from evidence_report where id = ?', [res.body.id]);
    expect(row?.result).not.to.have.any.keys('internalScore', 'prompt');
  });
});
