// Mocha hooks shared by the generation tests: one strict local fake Gemini per describe block,
// a Gemini generator on it, the committed contract, and a real pino logger whose lines are kept.
import { pino } from 'pino';
import type { Logger } from 'pino';
import type { GeneratorConfig } from '../../../src/generation/create-report-generator.ts';
import type { GeminiReportGenerator } from '../../../src/generation/gemini-generator.ts';
import type { ContractDocument } from '../../../src/generation/result-schema.ts';
import { startFakeGemini, type FakeGemini } from './fake-gemini-server.ts';
import { contractDocument, geminiGenerator } from './helpers.ts';

export interface FakeGeminiSuite {
  readonly fake: FakeGemini;
  /** A Gemini generator with geminiGenerator's settings, pointed at the fake. */
  readonly generator: GeminiReportGenerator;
  /** The committed contract, parsed. */
  readonly document: ContractDocument;
}

/**
 * Registers, in the calling describe block, a fake Gemini started before its tests, reset after
 * each (no test sees another's answers or requests) and stopped after all. Read the fields
 * inside tests and hooks, once `before` has run.
 */
export function useFakeGemini(): FakeGeminiSuite {
  let state: FakeGeminiSuite | undefined;
  before(async () => {
    const fake = await startFakeGemini();
    state = { fake, generator: await geminiGenerator(fake.baseUrl), document: await contractDocument() };
  });
  afterEach(() => state?.fake.reset());
  after(() => state?.fake.stop());
  const started = (): FakeGeminiSuite => {
    if (state === undefined) throw new Error('the fake Gemini has not started (read it inside a test or hook)');
    return state;
  };
  return {
    get fake() {
      return started().fake;
    },
    get generator() {
      return started().generator;
    },
    get document() {
      return started().document;
    },
  };
}

/** A real pino logger at debug level whose lines are kept. */
export function captureLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  return Object.assign(logger, { lines });
}

/** Generator settings for these tests (the offline generator, a 2 s bound, no delay), with `overrides`. */
export function generatorConfig(overrides: Partial<GeneratorConfig> = {}): GeneratorConfig {
  return {
    reportGenerator: 'offline',
    geminiApiKey: undefined,
    geminiModels: [],
    geminiBaseUrl: undefined,
    geminiTemperature: undefined,
    geminiThinkingLevel: 'low',
    geminiMaxOutputTokens: 8192,
    vertexAi: false,
    googleCloudProject: undefined,
    googleCloudLocation: 'global',
    generatorTimeoutMs: 2_000,
    offlineGeneratorDelayMs: 0,
    egressProxy: { httpsProxy: undefined, httpProxy: undefined, noProxy: undefined },
    ...overrides,
  };
}
