// Issue 5: a valid Gemini answer becomes the candidate, every enum value of the contract passes
// through unchanged, and model, latency and token counts come back for storage (never exposed).
import { expect } from 'chai';
import type { GeminiReportGenerator } from '../../src/generation/gemini-generator.ts';
import { createResultValidator } from '../../src/generation/result-schema.ts';
import type { ResultValidator } from '../../src/generation/result-schema.ts';
import { USAGE_METADATA, VALID_REPORT, reportAnswer, startFakeGemini } from './fake-gemini-server.ts';
import type { FakeGemini } from './fake-gemini-server.ts';
import { TEST_MODEL, contractDocument, geminiGenerator, input } from './helpers.ts';

const CATEGORIES = ['plumbing', 'electrical', 'cleaning', 'security', 'elevator', 'structural', 'appliance', 'other'];
const PRIORITIES = ['low', 'medium', 'high', 'urgent'];

describe('Gemini generator: a valid answer (issue 5, R2, R24)', () => {
  let fake: FakeGemini;
  let generator: GeminiReportGenerator;
  let validator: ResultValidator;
  before(async () => {
    fake = await startFakeGemini();
    generator = await geminiGenerator(fake.baseUrl);
    validator = createResultValidator(await contractDocument());
  });
  afterEach(() => fake.reset());
  after(() => fake.stop());

  it('returns the report as the candidate, with model, latency and token counts for storage (R2, R24)', async () => {
    fake.enqueue(reportAnswer(VALID_REPORT));
    const output = await generator.generate(input());
    expect(output.candidate).to.deep.equal(VALID_REPORT);
    expect(validator.toReportResult(output.candidate)).to.deep.equal(VALID_REPORT);
    expect(output).to.include({ generator: 'gemini', model: TEST_MODEL });
    expect(output.latencyMs).to.be.a('number').and.at.least(0);
    expect(output.tokenUsage).to.deep.equal({
      promptTokens: USAGE_METADATA.promptTokenCount,
      outputTokens: USAGE_METADATA.candidatesTokenCount,
      totalTokens: USAGE_METADATA.totalTokenCount,
    });
    expect(fake.requests).to.have.lengthOf(1);
  });

  for (const category of CATEGORIES) {
    it(`passes category "${category}" through unchanged (spec 2.3)`, async () => {
      fake.enqueue(reportAnswer({ ...VALID_REPORT, category }));
      const output = await generator.generate(input());
      expect(validator.toReportResult(output.candidate).category).to.equal(category);
    });
  }

  for (const priority of PRIORITIES) {
    it(`passes priority "${priority}" through unchanged (spec 2.3)`, async () => {
      fake.enqueue(reportAnswer({ ...VALID_REPORT, priority, suggestedNextStep: null }));
      const result = validator.toReportResult((await generator.generate(input())).candidate);
      expect(result.priority).to.equal(priority);
      expect(result.suggestedNextStep).to.equal(null);
    });
  }

  it('reads a JSON answer wrapped in a Markdown fence as JSON (R2, R24)', async () => {
    fake.enqueue({ body: { candidates: [{ content: { parts: [{ text: '```json\n' + JSON.stringify(VALID_REPORT) + '\n```' }] }, finishReason: 'STOP' }] } });
    const output = await generator.generate(input());
    expect(output.candidate).to.deep.equal(VALID_REPORT);
    expect(output.tokenUsage).to.equal(null);
  });

  it('ignores thought parts and joins the answer\'s text parts (R2, R24)', async () => {
    const text = JSON.stringify(VALID_REPORT);
    fake.enqueue({
      body: {
        candidates: [
          {
            content: { parts: [{ text: 'thinking about it', thought: true }, { text: text.slice(0, 20) }, { text: text.slice(20) }] },
            finishReason: 'STOP',
          },
        ],
      },
    });
    expect((await generator.generate(input())).candidate).to.deep.equal(VALID_REPORT);
  });
});
