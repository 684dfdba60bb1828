// The fake ReportGenerator other modules' unit tests use (every port has a real and a fake adapter).
import { expect } from 'chai';
import { FakeReportGenerator, SAMPLE_REPORT } from '../../../src/generation/fake-report-generator.ts';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import { createResultValidator } from '../../../src/generation/result-schema.ts';
import { contractDocument, input } from '../../support/generation/helpers.ts';

describe('FakeReportGenerator: canned answers for unit tests', () => {
  it('returns a contract-valid sample report by default and counts calls (R24)', async () => {
    const fake = new FakeReportGenerator();
    const output = await fake.generate(input());
    const validator = createResultValidator(await contractDocument());
    expect(validator.toReportResult(output.candidate)).to.deep.equal(SAMPLE_REPORT);
    await fake.generate(input({ text: 'second' }));
    expect(fake.callCount).to.equal(2);
    expect(fake.calls[1]?.text).to.equal('second');
  });

  it('returns a canned candidate, as given (the pipeline validates it) (R24)', async () => {
    const fake = new FakeReportGenerator({ candidate: { category: 'hvac' }, generator: 'gemini', model: 'm' });
    expect(await fake.generate(input())).to.deep.include({ candidate: { category: 'hvac' }, generator: 'gemini', model: 'm' });
  });

  it('throws a canned GenerationError of each kind (R24)', async () => {
    for (const kind of ['unavailable', 'failed', 'invalid'] as const) {
      const error = await new FakeReportGenerator({ error: { kind } }).generate(input()).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(GenerationError);
      expect(error).to.include({ kind });
    }
  });

  it('waits delayMs, and an abort cuts the wait short (R24)', async () => {
    const fake = new FakeReportGenerator({ delayMs: 5_000 });
    const started = performance.now();
    const error = await fake.generate(input(), AbortSignal.timeout(50)).catch((e: unknown) => e);
    expect(error).to.include({ kind: 'unavailable', reason: 'aborted' });
    expect(performance.now() - started).to.be.below(1_000);
  });
});
