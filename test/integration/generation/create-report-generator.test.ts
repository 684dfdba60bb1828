// Operator interface REPORT_GENERATOR and rulings R2, R25: the configured generator is used;
// offline is its own documented mode, never a silent fallback when Gemini fails; ordinary
// log lines carry neither the key nor the model name.
import { expect } from 'chai';
import { createReportGenerator } from '../../../src/generation/create-report-generator.ts';
import type { GeneratorConfig } from '../../../src/generation/create-report-generator.ts';
import { GeminiReportGenerator } from '../../../src/generation/gemini-generator.ts';
import { OfflineReportGenerator } from '../../../src/generation/offline-generator.ts';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import { errorAnswer } from '../../support/generation/fake-gemini-server.ts';
import { captureLogger, generatorConfig, useFakeGemini } from '../../support/generation/fake-gemini-suite.ts';
import { TEST_API_KEY, input } from '../../support/generation/helpers.ts';

const MODEL = 'gemini-configured-model';

function config(overrides: Partial<GeneratorConfig>): GeneratorConfig {
  return generatorConfig({ geminiModels: [MODEL], ...overrides });
}

describe('createReportGenerator: REPORT_GENERATOR selects the generator (operator interface, R2, R25)', () => {
  const suite = useFakeGemini();

  it('builds the offline generator for REPORT_GENERATOR=offline, with the bench delay (R25)', async () => {
    const logger = captureLogger();
    const generator = await createReportGenerator(config({ offlineGeneratorDelayMs: 60 }), suite.document, logger);
    expect(generator).to.be.instanceOf(OfflineReportGenerator);
    const output = await generator.generate(input());
    expect(output).to.include({ generator: 'offline', model: 'offline' });
    expect(output.latencyMs).to.be.at.least(55);
  });

  it('builds the Gemini generator for REPORT_GENERATOR=gemini, on GEMINI_BASE_URL with GEMINI_MODEL (R2)', async () => {
    const generator = await createReportGenerator(
      config({ reportGenerator: 'gemini', geminiApiKey: TEST_API_KEY, geminiBaseUrl: suite.fake.baseUrl }),
      suite.document,
      captureLogger(),
    );
    expect(generator).to.be.instanceOf(GeminiReportGenerator);
    const output = await generator.generate(input());
    expect(output).to.include({ generator: 'gemini', model: MODEL });
    expect(suite.fake.requests[0]?.model).to.equal(MODEL);
    expect(suite.fake.requests[0]?.headers['x-goog-api-key']).to.equal(TEST_API_KEY);
  });

  it('never falls back to the offline generator when Gemini fails (R25)', async () => {
    suite.fake.setDefault(errorAnswer(503));
    const generator = await createReportGenerator(
      config({ reportGenerator: 'gemini', geminiApiKey: TEST_API_KEY, geminiBaseUrl: suite.fake.baseUrl }),
      suite.document,
      captureLogger(),
    );
    const error = await generator.generate(input()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(GenerationError);
    expect(error).to.include({ kind: 'unavailable' });
  });

  it('refuses REPORT_GENERATOR=gemini without a key (operator interface)', async () => {
    const error = await createReportGenerator(config({ reportGenerator: 'gemini' }), suite.document, captureLogger()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/GEMINI_API_KEY/);
  });

  it('logs which generator runs, never the key or the model name', async () => {
    const logger = captureLogger();
    suite.fake.setDefault(errorAnswer(503));
    const generator = await createReportGenerator(
      config({ reportGenerator: 'gemini', geminiApiKey: TEST_API_KEY, geminiBaseUrl: suite.fake.baseUrl }),
      suite.document,
      logger,
    );
    await generator.generate(input()).catch(() => undefined);
    expect(logger.lines.join('\n')).to.contain('gemini');
    expect(logger.lines.join('\n')).not.to.contain(TEST_API_KEY);
    expect(logger.lines.join('\n')).not.to.contain(MODEL);
    expect(logger.lines.join('\n')).not.to.contain('provider says');
  });
});
