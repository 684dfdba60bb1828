// R46's figures from runCases: the latency percentiles count failed generations too (a timeout
// at its full time), and the schema-valid rate judges the answers the generator gave: an answer
// it found invalid counts against it, an outage does not (it is an error).
import { expect } from 'chai';
import { loadConfig } from '../../../src/config.ts';
import { GenerationError, type ReportGenerator } from '../../../src/generation/report-generator.ts';
import { createResultValidator } from '../../../src/generation/result-schema.ts';
import { loadContract } from '../../../src/http/contract.ts';
import { ByteBudget } from '../../../src/images/byte-budget.ts';
import { composeImageBoundary } from '../../../src/images/compose-image-boundary.ts';
import { parseCase } from '../../../eval/cases.ts';
import { runCases, type PreparedRun } from '../../../eval/runner.ts';
import { summarize } from '../../../eval/score.ts';

const textCase = (id: string) =>
  parseCase(
    { id, lang: 'en', request: { context: 'property_maintenance', evidence: { text: 'Water is leaking from the pipe under the sink.' } }, label: { category: 'plumbing', priorities: ['medium'] } },
    id,
  );

describe('npm run eval: latency and the schema-valid rate (R46)', () => {
  it('a generation that fails after 150 ms is timed; an invalid answer is answered, with its model and tokens, an outage is not', async () => {
    const contract = await loadContract();
    const config = loadConfig({});
    const failures: Record<string, GenerationError> = {
      slow: new GenerationError('unavailable', 'timeout'),
      // An answer: generated and billed, so its model and tokens count (R43).
      invalid: new GenerationError('invalid', 'not_json', { answer: { model: 'gemini-test-flash', tokens: { input: 321, output: 87, thinking: 12 } } }),
    };
    const generator: ReportGenerator = {
      generate: async (input) => {
        await new Promise((resolve) => setTimeout(resolve, 150));
        const failure = Object.entries(failures).find(([id]) => input.text?.startsWith(id))?.[1];
        if (failure) throw failure;
        throw new Error('every case here fails');
      },
    };
    const prepared = {
      config,
      generator,
      images: composeImageBoundary(config, { budget: new ByteBudget(config.imageBytesInFlightMax), generator }),
      validator: createResultValidator(contract.document),
    } as unknown as PreparedRun;
    const cases = ['slow', 'invalid'].map((id) => {
      const c = textCase(id);
      return { ...c, request: { ...c.request, evidence: { text: `${id}: ${c.request.evidence.text ?? ''}` } } };
    });
    const host = { urlsOf: () => [], requests: 0, [Symbol.asyncDispose]: async () => {} };
    const outcomes = await runCases(cases, prepared, { contract, host, concurrency: 2 });
    for (const outcome of outcomes) expect(outcome.latencyMs, outcome.id).to.be.at.least(140);
    expect(outcomes.map((o) => [o.id, o.answered, o.error])).to.deep.equal([
      ['slow', false, 'generation_unavailable: timeout'],
      ['invalid', true, 'generation_invalid: not_json'],
    ]);
    const summary = summarize(outcomes);
    expect(summary.latencyMs.p50).to.be.at.least(140);
    expect(summary.answered).to.equal(1);
    expect(summary.schemaValidRate).to.equal(0);
    expect(summary.models).to.deep.equal({ 'gemini-test-flash': 1 });
    expect(summary.tokens.total).to.deep.equal({ input: 321, output: 87, thinking: 12 });
  });
});
