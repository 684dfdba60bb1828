// R42 (models tried in order, fallback on 404 / 429 / 5xx, RetryInfo, the start-up lookup) and
// R43 (settings per model family, tokens counted apart), against the strict local fake Gemini.
import { expect } from 'chai';
import { ConfigError } from '../../../src/config.ts';
import { createReportGenerator } from '../../../src/generation/create-report-generator.ts';
import type { GeneratorConfig } from '../../../src/generation/create-report-generator.ts';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import type { AttemptOutcome, GenerationObserver, GenerationTokens } from '../../../src/generation/report-generator.ts';
import {
  errorAnswer,
  rateLimitedAnswer,
  reportAnswer,
  VALID_REPORT,
  textAnswer,
  thinkingAnswer,
  THINKING_USAGE,
  OUTPUT_TOKEN_LIMIT,
} from '../../support/generation/fake-gemini-server.ts';
import { sentBody } from '../../support/generation/gemini-request-inspection.ts';
import { captureLogger, generatorConfig, useFakeGemini } from '../../support/generation/fake-gemini-suite.ts';
import { geminiGenerator, input, TEST_API_KEY } from '../../support/generation/helpers.ts';

const PRIMARY = 'gemini-primary-flash';
const FALLBACK = 'gemini-fallback-flash';

class RecordingObserver implements GenerationObserver {
  readonly attempts: [string, AttemptOutcome][] = [];
  readonly tokenLog: [string, GenerationTokens][] = [];
  attempt(model: string, outcome: AttemptOutcome): void {
    this.attempts.push([model, outcome]);
  }
  tokens(model: string, tokens: GenerationTokens): void {
    this.tokenLog.push([model, tokens]);
  }
}

async function failureOf(promise: Promise<unknown>): Promise<GenerationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).to.be.instanceOf(GenerationError);
  return error as GenerationError;
}

describe('Gemini models in order, with fallbacks (R42)', () => {
  const suite = useFakeGemini();

  const twoModels = async (observer: GenerationObserver, overrides = {}) =>
    geminiGenerator(suite.fake.baseUrl, { models: [PRIMARY, FALLBACK], observer, ...overrides });

  for (const [what, answer, outcome] of [
    ['404 (a retired model)', undefined, 'not_found'],
    ['429 without RetryInfo', rateLimitedAnswer(undefined), 'rate_limited'],
    ['503', errorAnswer(503), 'unavailable'],
    ['500', errorAnswer(500), 'unavailable'],
  ] as const) {
    it(`goes on to the next model after a ${what}, and the report names the model that answered`, async () => {
      if (answer === undefined) suite.fake.retired.add(PRIMARY);
      else suite.fake.enqueue(answer);
      const observer = new RecordingObserver();
      const output = await (await twoModels(observer)).generate(input());
      expect(suite.fake.requests.map((r) => r.model)).to.deep.equal([PRIMARY, FALLBACK]);
      expect(output.model).to.equal(FALLBACK);
      expect(observer.attempts).to.deep.equal([
        [PRIMARY, outcome],
        [FALLBACK, 'ok'],
      ]);
      // The same request goes to the fallback: only the model in the path differs.
      expect(suite.fake.requests[1]?.rawBody).to.equal(suite.fake.requests[0]?.rawBody);
    });
  }

  it('an answer the contract refuses is an invalid attempt, not an ok one, and no other model is asked (R24, R42)', async () => {
    suite.fake.enqueue(reportAnswer({ ...VALID_REPORT, confidence: 1.5 }));
    const observer = new RecordingObserver();
    const error = await failureOf((await twoModels(observer)).generate(input()));
    expect(error.kind).to.equal('invalid');
    expect(error.answer, 'the answer was generated, and billed').to.deep.include({ model: PRIMARY });
    expect(observer.attempts).to.deep.equal([[PRIMARY, 'invalid']]);
    expect(suite.fake.requests.map((r) => r.model)).to.deep.equal([PRIMARY]);
  });

  it('retries a 429 on the same model after its RetryInfo delay when that fits the deadline', async () => {
    suite.fake.enqueue(rateLimitedAnswer('0.3s'), reportAnswer());
    const observer = new RecordingObserver();
    const output = await (await twoModels(observer, { timeoutMs: 3_000, minRetryWindowMs: 500 })).generate(input());
    expect(suite.fake.requests.map((r) => r.model)).to.deep.equal([PRIMARY, PRIMARY]);
    expect(output.model).to.equal(PRIMARY);
    const waited = (suite.fake.requests[1]?.receivedAt ?? 0) - (suite.fake.requests[0]?.receivedAt ?? 0);
    expect(waited).to.be.at.least(290);
    expect(observer.attempts).to.deep.equal([
      [PRIMARY, 'rate_limited'],
      [PRIMARY, 'ok'],
    ]);
  });

  it('goes to the next model at once when the RetryInfo delay does not fit the deadline', async () => {
    suite.fake.enqueue(rateLimitedAnswer('30s'));
    const started = performance.now();
    const output = await (await twoModels(new RecordingObserver(), { timeoutMs: 3_000 })).generate(input());
    expect(performance.now() - started).to.be.below(1_500);
    expect(suite.fake.requests.map((r) => r.model)).to.deep.equal([PRIMARY, FALLBACK]);
    expect(output.model).to.equal(FALLBACK);
  });

  it('answers with the last failure only when every model failed (503 after 404: unavailable)', async () => {
    suite.fake.retired.add(PRIMARY);
    suite.fake.setDefault(errorAnswer(503));
    const observer = new RecordingObserver();
    const error = await failureOf((await twoModels(observer)).generate(input()));
    expect(error).to.include({ kind: 'unavailable', reason: 'http_503' });
    // The primary's 404, then the fallback and the fallback's single retry of a transient failure.
    expect(observer.attempts).to.deep.equal([
      [PRIMARY, 'not_found'],
      [FALLBACK, 'unavailable'],
      [FALLBACK, 'unavailable'],
    ]);
  });

  it('every model retired: the last 404 is the answer (report_generation_failed), without a retry', async () => {
    suite.fake.retired.add(PRIMARY);
    suite.fake.retired.add(FALLBACK);
    const logger = captureLogger();
    const error = await failureOf((await twoModels(new RecordingObserver(), { logger })).generate(input()));
    expect(error).to.include({ kind: 'failed', reason: 'http_404' });
    expect(suite.fake.requests.map((r) => r.model)).to.deep.equal([PRIMARY, FALLBACK]);
    // Each retirement is said once; the last model's warning does not promise a fallback.
    const warned = logger.lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40);
    expect(warned.map((l) => l.msg)).to.deep.equal([
      'a model of GEMINI_MODEL answered 404 (retired or unknown): requests fall back to the next model; replace it',
      'the last model of GEMINI_MODEL answered 404 (retired or unknown): no model is left to fall back to; replace it',
    ]);
  });

  for (const [what, answer, outcome] of [
    ['a 400', errorAnswer(400), 'failed'],
    ['a safety block', textAnswer('{}', 'SAFETY'), 'failed'],
    ['an answer that is not JSON', textAnswer('not json'), 'invalid'],
  ] as const) {
    it(`does not ask another model after ${what}: that answer would be the same anywhere`, async () => {
      suite.fake.enqueue(answer);
      const observer = new RecordingObserver();
      await failureOf((await twoModels(observer)).generate(input()));
      expect(suite.fake.requests.map((r) => r.model)).to.deep.equal([PRIMARY]);
      expect(observer.attempts).to.deep.equal([[PRIMARY, outcome]]);
    });
  }

  it('a caller that goes away is no attempt of the model: nothing is counted, and no other model is asked', async () => {
    suite.fake.enqueue({ kind: 'stall' });
    const observer = new RecordingObserver();
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 200);
    const failure = await failureOf((await twoModels(observer, { timeoutMs: 5_000 })).generate(input(), caller.signal));
    expect(failure).to.include({ kind: 'unavailable', reason: 'aborted' });
    expect(observer.attempts).to.deep.equal([]);
    expect(suite.fake.requests.map((r) => r.model)).to.deep.equal([PRIMARY]);
  });

  it('keeps every model and pause inside the one GENERATOR_TIMEOUT_MS deadline', async () => {
    suite.fake.enqueue(errorAnswer(503, 300), { kind: 'stall' });
    const started = performance.now();
    const error = await failureOf((await twoModels(new RecordingObserver(), { timeoutMs: 800 })).generate(input()));
    const elapsed = performance.now() - started;
    expect(error).to.include({ kind: 'unavailable', reason: 'timeout' });
    expect(suite.fake.requests.map((r) => r.model)).to.deep.equal([PRIMARY, FALLBACK]);
    // At the one deadline: a deadline per model would take two (1,600 ms); the margin is a loaded CI's.
    expect(elapsed).to.be.within(780, 800 + 600);
  });
});

describe('Gemini settings and tokens (R43)', () => {
  const suite = useFakeGemini();

  it('sends no temperature by default, thinkingLevel LOW and the output bound', async () => {
    await (await geminiGenerator(suite.fake.baseUrl)).generate(input());
    const config = sentBody(suite.fake.requests[0]).generationConfig;
    expect(config).not.to.have.property('temperature');
    expect(config.thinkingConfig).to.deep.equal({ thinkingLevel: 'LOW' });
    expect(config.maxOutputTokens).to.equal(8192);
  });

  it('a Gemini 2.5 model (still configurable as a fallback) gets no thinkingLevel, which it refuses: the primary\'s 503 moves the request to it and it answers (R42, R43)', async () => {
    suite.fake.enqueue(errorAnswer(503));
    const generator = await geminiGenerator(suite.fake.baseUrl, { models: ['gemini-3.8-flash', 'gemini-2.5-flash'], thinkingLevel: 'high' });
    const output = await generator.generate(input());
    expect(output.model).to.equal('gemini-2.5-flash');
    const [primary, fallback] = suite.fake.requests.map((request) => sentBody(request).generationConfig);
    expect(primary?.thinkingConfig).to.deep.equal({ thinkingLevel: 'HIGH' });
    expect(fallback).not.to.have.property('thinkingConfig');
    expect(fallback?.maxOutputTokens, 'the other settings are the same').to.equal(primary?.maxOutputTokens);
  });

  it('counts input, output and thinking tokens apart and reads only the answer part of a thinking answer', async () => {
    suite.fake.enqueue(thinkingAnswer());
    const observer = new RecordingObserver();
    const output = await (await geminiGenerator(suite.fake.baseUrl, { observer })).generate(input());
    const tokens = { input: THINKING_USAGE.promptTokenCount, output: THINKING_USAGE.candidatesTokenCount, thinking: THINKING_USAGE.thoughtsTokenCount };
    expect(output.tokens).to.deep.equal(tokens);
    expect(output.candidate).to.have.property('category', 'plumbing');
    expect(observer.tokenLog).to.deep.equal([['gemini-test-flash', tokens]]);
  });

  it('an output bound above the model\'s limit is refused by Gemini (400 INVALID_ARGUMENT): report_generation_failed, never asked again', async () => {
    const generator = await geminiGenerator(suite.fake.baseUrl, { maxOutputTokens: OUTPUT_TOKEN_LIMIT + 1 });
    expect((await failureOf(generator.generate(input()))).reason).to.equal('http_400');
    expect(suite.fake.refused.map((r) => r.message)).to.deep.equal([
      `Unable to submit request because it has a maxOutputTokens value of ${OUTPUT_TOKEN_LIMIT + 1} but the supported range is from 1 (inclusive) to ${OUTPUT_TOKEN_LIMIT + 1} (exclusive). Update the value and try again.`,
    ]);
    expect(suite.fake.requests).to.have.lengthOf(1);
  });

  it('counts the tokens of an answer that fails too (a cut answer is billed)', async () => {
    suite.fake.enqueue(textAnswer('{"title":', 'MAX_TOKENS'));
    const observer = new RecordingObserver();
    await failureOf((await geminiGenerator(suite.fake.baseUrl, { observer })).generate(input()));
    expect(observer.tokenLog).to.have.lengthOf(1);
    expect(observer.attempts).to.deep.equal([['gemini-test-flash', 'failed']]);
  });
});

describe('the start-up lookup of GEMINI_MODEL (R42)', () => {
  const suite = useFakeGemini();

  const config = (): GeneratorConfig =>
    generatorConfig({ reportGenerator: 'gemini', geminiApiKey: TEST_API_KEY, geminiModels: [PRIMARY, FALLBACK], geminiBaseUrl: suite.fake.baseUrl });

  it('looks every listed model up once (models.get) and starts', async () => {
    await createReportGenerator(config(), suite.document, captureLogger());
    expect(suite.fake.lookups.map((r) => r.model).sort()).to.deep.equal([FALLBACK, PRIMARY].sort());
    expect(suite.fake.lookups.every((r) => r.method === 'GET' && r.url.startsWith('/v1beta/models/'))).to.equal(true);
  });

  it('a model that answers 404 stops the start with one line naming GEMINI_MODEL and the model', async () => {
    suite.fake.retired.add(FALLBACK);
    const error = await createReportGenerator(config(), suite.document, captureLogger()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).to.include('GEMINI_MODEL').and.include(FALLBACK).and.not.include('\n');
  });

  it('an output bound above a model\'s reported limit stops the start with one line naming GEMINI_MAX_OUTPUT_TOKENS and the model (R43)', async () => {
    const error = await createReportGenerator({ ...config(), geminiMaxOutputTokens: OUTPUT_TOKEN_LIMIT + 1 }, suite.document, captureLogger()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).to.include('GEMINI_MAX_OUTPUT_TOKENS').and.include(PRIMARY).and.include(String(OUTPUT_TOKEN_LIMIT)).and.not.include('\n');
  });

  it('an output bound at the limit starts, and one the lookup gives no limit for is not held to one (Vertex AI reports none)', async () => {
    await createReportGenerator({ ...config(), geminiMaxOutputTokens: OUTPUT_TOKEN_LIMIT }, suite.document, captureLogger());
    suite.fake.setLookupAnswer({ body: { name: `models/${PRIMARY}`, version: '001', displayName: PRIMARY } });
    await createReportGenerator({ ...config(), geminiMaxOutputTokens: OUTPUT_TOKEN_LIMIT * 2 }, suite.document, captureLogger());
  });

  it('a lookup that cannot be made (a 503) is logged and the start goes on', async () => {
    suite.fake.setLookupAnswer(errorAnswer(503));
    const logger = captureLogger();
    const generator = await createReportGenerator(config(), suite.document, logger);
    expect(suite.fake.lookups).to.have.lengthOf(2);
    const warned = logger.lines.map((l) => JSON.parse(l) as { msg: string; reason?: string }).filter((l) => /lookup could not be made/.test(l.msg));
    expect(warned.map((l) => l.reason)).to.deep.equal(['http_503', 'http_503']);
    expect((await generator.generate(input())).model).to.equal(PRIMARY);
  });
});
