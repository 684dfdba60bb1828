// R2, R24: a valid Gemini answer becomes the candidate, every enum value of the contract passes
// through unchanged, and model, latency and token counts come back for storage (never exposed).
import { expect } from 'chai';
import { createResultValidator } from '../../../src/generation/result-schema.ts';
import type { ResultValidator } from '../../../src/generation/result-schema.ts';
import { USAGE_METADATA, VALID_REPORT, reportAnswer } from '../../support/generation/fake-gemini-server.ts';
import { useFakeGemini } from '../../support/generation/fake-gemini-suite.ts';
import { TEST_MODEL, input } from '../../support/generation/helpers.ts';

const CATEGORIES = ['plumbing', 'electrical', 'cleaning', 'security', 'elevator', 'structural', 'appliance', 'other'];
const PRIORITIES = ['low', 'medium', 'high', 'urgent'];

describe('Gemini generator: a valid answer (R2, R24)', () => {
  const suite = useFakeGemini();
  let validator: ResultValidator;
  before(() => {
    validator = createResultValidator(suite.document);
  });

  it('returns the report as the candidate, with model, latency and token counts for storage (R2, R24)', async () => {
    suite.fake.enqueue(reportAnswer(VALID_REPORT));
    const output = await suite.generator.generate(input());
    expect(output.candidate).to.deep.equal(VALID_REPORT);
    expect(validator.toReportResult(output.candidate)).to.deep.equal(VALID_REPORT);
    expect(output).to.include({ generator: 'gemini', model: TEST_MODEL });
    expect(output.latencyMs).to.be.a('number').and.at.least(0);
    expect(output.tokenUsage).to.deep.equal({
      promptTokens: USAGE_METADATA.promptTokenCount,
      outputTokens: USAGE_METADATA.candidatesTokenCount,
      totalTokens: USAGE_METADATA.totalTokenCount,
    });
    expect(suite.fake.requests).to.have.lengthOf(1);
  });

  for (const category of CATEGORIES) {
    it(`passes category "${category}" through unchanged (spec 2.3)`, async () => {
      suite.fake.enqueue(reportAnswer({ ...VALID_REPORT, category }));
      const output = await suite.generator.generate(input());
      expect(validator.toReportResult(output.candidate).category).to.equal(category);
    });
  }

  for (const priority of PRIORITIES) {
    it(`passes priority "${priority}" through unchanged (spec 2.3)`, async () => {
      suite.fake.enqueue(reportAnswer({ ...VALID_REPORT, priority, suggestedNextStep: null }));
      const result = validator.toReportResult((await suite.generator.generate(input())).candidate);
      expect(result.priority).to.equal(priority);
      expect(result.suggestedNextStep).to.equal(null);
    });
  }

  it('reads a JSON answer wrapped in a Markdown fence as JSON (R2, R24)', async () => {
    suite.fake.enqueue({ body: { candidates: [{ content: { parts: [{ text: '```json\n' + JSON.stringify(VALID_REPORT) + '\n```' }] }, finishReason: 'STOP' }] } });
    const output = await suite.generator.generate(input());
    expect(output.candidate).to.deep.equal(VALID_REPORT);
    expect(output.tokenUsage).to.equal(null);
  });

  it('ignores thought parts and joins the answer\'s text parts (R2, R24)', async () => {
    const text = JSON.stringify(VALID_REPORT);
    suite.fake.enqueue({
      body: {
        candidates: [
          {
            content: { parts: [{ text: 'thinking about it', thought: true }, { text: text.slice(0, 20) }, { text: text.slice(20) }] },
            finishReason: 'STOP',
          },
        ],
      },
    });
    expect((await suite.generator.generate(input())).candidate).to.deep.equal(VALID_REPORT);
  });
});
