// A valid Gemini answer through the whole service (R2, R24, spec 2.2, 2.3): 201 with
// exactly the eight result fields as Gemini gave them; fields the answer adds are dropped,
// neither returned nor stored; every enum value passes through; the report is stored with the
// generator, the model and its unit.
import { expect } from 'chai';
import { client } from '../support/http-client.ts';
import { countCustomerRows, createCustomerFixture } from '../support/database.ts';
import { VALID_REPORT, reportAnswer } from '../support/generation/fake-gemini-server.ts';
import { expectCleanLog, useGeminiRun } from '../support/e2e/gemini-service.ts';
import { storedReport } from '../support/e2e/stored-reports.ts';

const CATEGORIES = ['plumbing', 'electrical', 'cleaning', 'security', 'elevator', 'structural', 'appliance', 'other'];
const PRIORITIES = ['low', 'medium', 'high', 'urgent'];

describe('Gemini end to end: a valid answer becomes the 201 report, extra fields dropped (R24)', function () {
  this.timeout(30_000);
  const suite = useGeminiRun();
  const { customerKeys } = suite;

  it('201 with exactly the eight fields; extra fields of the answer are neither returned nor stored (R24, spec 2.2)', async () => {
    const customer = await createCustomerFixture();
    customerKeys.push(customer.apiKey);
    suite.run.gemini.setDefault(
      reportAnswer({
        ...VALID_REPORT,
        internalNote: 'extra-field-must-not-leak',
        model: 'extra-model-must-not-leak',
        raw: { prompt: 'extra-prompt-must-not-leak' },
      }),
    );
    const res = await client(suite.run.service.url, customer.apiKey).createReport<{ id: string; status: string; result: unknown; usage: unknown }>({
      context: 'property_maintenance',
      evidence: { text: 'Water is dripping from the trap under the kitchen sink.' },
    });
    expect(res.status, res.text).to.equal(201);
    expect(Object.keys(res.body).sort()).to.deep.equal(['id', 'result', 'status', 'usage']);
    expect(res.body.status).to.equal('completed');
    expect(res.body.result).to.deep.equal(VALID_REPORT);
    expect(res.body.usage).to.deep.equal({ operation: 'evidence_report', units: 1 });
    expect(res.text).not.to.match(/extra-.*-must-not-leak|internalNote/);
    expect(suite.run.gemini.requests).to.have.length(1);

    const stored = await storedReport(customer.customerId, res.body.id);
    expect(stored.result).to.deep.equal(VALID_REPORT);
    expect(stored.generator).to.equal('gemini');
    expect(stored.model).to.equal(suite.run.model);
    expect(JSON.stringify(stored)).not.to.include('must-not-leak');
    const counts = await countCustomerRows(customer.customerId);
    expect([counts.evidence_report, counts.usage_record]).to.deep.equal([1, 1]);
  });

  it('every category and priority of the contract passes through unchanged (spec 2.3)', async () => {
    const customer = await createCustomerFixture();
    customerKeys.push(customer.apiKey);
    const api = client(suite.run.service.url, customer.apiKey);
    const pairs = CATEGORIES.map((category, i) => [category, PRIORITIES[i % PRIORITIES.length]!] as const);
    for (const [category, priority] of pairs) {
      const report = { ...VALID_REPORT, category, priority, suggestedNextStep: null, tags: [], riskFlags: [], confidence: category === 'other' ? 0 : 1 };
      suite.run.gemini.enqueue(reportAnswer(report));
      const res = await api.createReport<{ result: unknown }>({ context: 'field_inspection', evidence: { text: `Check for ${category}.` } });
      expect(res.status, res.text).to.equal(201);
      expect(res.body.result).to.deep.equal(report);
    }
    expect((await countCustomerRows(customer.customerId)).usage_record).to.equal(pairs.length);
  });

  it('the log of the run names neither the Gemini key nor a customer key, nor the model in ordinary lines (R26)', () => {
    expectCleanLog(suite.run, customerKeys);
  });
});
