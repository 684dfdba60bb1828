// Operator interface REPORT_GENERATOR and rulings R2, R25: the configured generator is used;
// offline is its own documented mode, never a silent fallback when Gemini fails; ordinary
// log lines carry neither the key nor the model name (issue 5).
import { expect } from 'chai';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { createReportGenerator } from '../../src/generation/create-report-generator.ts';
import type { GeneratorConfig } from '../../src/generation/create-report-generator.ts';
import { GeminiReportGenerator } from '../../src/generation/gemini-generator.ts';
import { OfflineReportGenerator } from '../../src/generation/offline-generator.ts';
import { GenerationError } from '../../src/generation/report-generator.ts';
import type { ContractDocument } from '../../src/generation/result-schema.ts';
import { errorAnswer, startFakeGemini } from './fake-gemini-server.ts';
import type { FakeGemini } from './fake-gemini-server.ts';
import { TEST_API_KEY, contractDocument, input } from './helpers.ts';

const MODEL = 'gemini-configured-model';

function config(overrides: Partial<GeneratorConfig>): GeneratorConfig {
  return {
    reportGenerator: 'offline',
    geminiApiKey: undefined,
    geminiModel: MODEL,
    geminiBaseUrl: undefined,
    generatorTimeoutMs: 2_000,
    offlineGeneratorDelayMs: 0,
    ...overrides,
  };
}

/** A real pino logger at debug level whose lines are kept. */
function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return Object.assign(logger, { lines });
}

describe('createReportGenerator: REPORT_GENERATOR selects the generator (operator interface, R2, R25)', () => {
  let fake: FakeGemini;
  let document: ContractDocument;
  before(async () => {
    fake = await startFakeGemini();
    document = await contractDocument();
  });
  afterEach(() => fake.reset());
  after(() => fake.stop());

  it('builds the offline generator for REPORT_GENERATOR=offline, with the bench delay (R25)', async () => {
    const logger = captureLogger();
    const generator = await createReportGenerator(config({ offlineGeneratorDelayMs: 60 }), document, logger);
    expect(generator).to.be.instanceOf(OfflineReportGenerator);
    const output = await generator.generate(input());
    expect(output).to.include({ generator: 'offline', model: null });
    expect(output.latencyMs).to.be.at.least(55);
  });

  it('builds the Gemini generator for REPORT_GENERATOR=gemini, on GEMINI_BASE_URL with GEMINI_MODEL (R2)', async () => {
    const generator = await createReportGenerator(
      config({ reportGenerator: 'gemini', geminiApiKey: TEST_API_KEY, geminiBaseUrl: fake.baseUrl }),
      document,
      captureLogger(),
    );
    expect(generator).to.be.instanceOf(GeminiReportGenerator);
    const output = await generator.generate(input());
    expect(output).to.include({ generator: 'gemini', model: MODEL });
    expect(fake.requests[0]?.model).to.equal(MODEL);
    expect(fake.requests[0]?.headers['x-goog-api-key']).to.equal(TEST_API_KEY);
  });

  it('never falls back to the offline generator when Gemini fails (R25)', async () => {
    fake.setDefault(errorAnswer(503));
    const generator = await createReportGenerator(
      config({ reportGenerator: 'gemini', geminiApiKey: TEST_API_KEY, geminiBaseUrl: fake.baseUrl }),
      document,
      captureLogger(),
    );
    const error = await generator.generate(input()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(GenerationError);
    expect(error).to.include({ kind: 'unavailable' });
  });

  it('refuses REPORT_GENERATOR=gemini without a key (operator interface)', async () => {
    const error = await createReportGenerator(config({ reportGenerator: 'gemini' }), document, captureLogger()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(Error);
    expect((error as Error).message).to.match(/GEMINI_API_KEY/);
  });

  it('logs which generator runs, never the key or the model name (issue 5)', async () => {
    const logger = captureLogger();
    fake.setDefault(errorAnswer(503));
    const generator = await createReportGenerator(
      config({ reportGenerator: 'gemini', geminiApiKey: TEST_API_KEY, geminiBaseUrl: fake.baseUrl }),
      document,
      logger,
    );
    await generator.generate(input()).catch(() => undefined);
    expect(logger.lines.join('\n')).to.contain('gemini');
    expect(logger.lines.join('\n')).not.to.contain(TEST_API_KEY);
    expect(logger.lines.join('\n')).not.to.contain(MODEL);
    expect(logger.lines.join('\n')).not.to.contain('provider says');
  });
});
