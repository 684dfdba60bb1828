// Ruling R24, failure mapping. Every failure class of the Gemini call, with its kind:
//   unavailable -> 503 report_generation_unavailable, failed -> 502 report_generation_failed,
//   invalid -> 502 invalid_generated_report.
// No GenerationError carries a provider message, the model name, the key or the prompt.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import { createResultValidator } from '../../../src/generation/result-schema.ts';
import type { ResultValidator } from '../../../src/generation/result-schema.ts';
import { VALID_REPORT, blockedPromptAnswer, continuationAnswer, errorAnswer, invalidKeyAnswer, reportAnswer, textAnswer } from '../../support/generation/fake-gemini-server.ts';
import type { FakeGeminiAnswer } from '../../support/generation/fake-gemini-server.ts';
import { useFakeGemini } from '../../support/generation/fake-gemini-suite.ts';
import { PNG_BYTES, TEST_API_KEY, TEST_MODEL, geminiGenerator, image, input } from '../../support/generation/helpers.ts';

async function failure(promise: Promise<unknown>): Promise<GenerationError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected a GenerationError').to.be.instanceOf(GenerationError);
  const generationError = error as GenerationError;
  for (const secret of ['secret provider detail', TEST_MODEL, TEST_API_KEY, 'leaking from the pipe']) {
    expect(generationError.message).not.to.contain(secret);
    expect(JSON.stringify(generationError)).not.to.contain(secret);
  }
  return generationError;
}

describe('Gemini generator: failure mapping (R24)', () => {
  const suite = useFakeGemini();
  let validator: ResultValidator;
  before(() => {
    validator = createResultValidator(suite.document);
  });

  const table: [string, FakeGeminiAnswer, GenerationError['kind'], string][] = [
    ['HTTP 500', errorAnswer(500), 'unavailable', 'http_500'],
    ['HTTP 503', errorAnswer(503), 'unavailable', 'http_503'],
    ['HTTP 429 (rate-limited)', errorAnswer(429), 'unavailable', 'http_429'],
    ['a dropped connection', { kind: 'destroy' }, 'unavailable', 'connection_lost'],
    ['a body cut after the 200', { kind: 'cutBody' }, 'unavailable', 'connection_lost'],
    ['HTTP 400', errorAnswer(400), 'failed', 'http_400'],
    ['HTTP 403', errorAnswer(403), 'failed', 'http_403'],
    ['a key Google does not know (400 with ErrorInfo API_KEY_INVALID)', invalidKeyAnswer(), 'failed', 'api_key_invalid'],
    ['the same, its error body wrapped in an array (as some Google front ends send it)', { status: 400, body: [invalidKeyAnswer().body] }, 'failed', 'api_key_invalid'],
    ['HTTP 404 (unknown model)', errorAnswer(404), 'failed', 'http_404'],
    ['a safety block via promptFeedback.blockReason', blockedPromptAnswer('SAFETY'), 'failed', 'prompt_blocked'],
    ['a prompt blocked as PROHIBITED_CONTENT', blockedPromptAnswer('PROHIBITED_CONTENT'), 'failed', 'prompt_blocked'],
    ['finishReason SAFETY', textAnswer('', 'SAFETY'), 'failed', 'safety_block'],
    ['finishReason RECITATION', textAnswer('{"title":"x"', 'RECITATION'), 'failed', 'safety_block'],
    ['finishReason PROHIBITED_CONTENT', textAnswer('', 'PROHIBITED_CONTENT'), 'failed', 'safety_block'],
    ['finishReason BLOCKLIST', textAnswer('', 'BLOCKLIST'), 'failed', 'safety_block'],
    ['finishReason SPII', textAnswer('', 'SPII'), 'failed', 'safety_block'],
    ['finishReason OTHER (a refusal)', textAnswer('I cannot help with that.', 'OTHER'), 'failed', 'refused'],
    ['finishReason MAX_TOKENS (truncated)', textAnswer('{"title": "Water le', 'MAX_TOKENS'), 'failed', 'truncated'],
    ['empty candidates', { body: { candidates: [] } }, 'failed', 'empty_answer'],
    ['no candidates at all', { body: {} }, 'failed', 'empty_answer'],
    ['a candidate with empty text', textAnswer('   '), 'failed', 'empty_answer'],
    ['a candidate without parts', { body: { candidates: [{ content: { role: 'model' }, finishReason: 'STOP' }] } }, 'failed', 'empty_answer'],
    ['a 200 that is not the protocol\'s JSON', { kind: 'raw', contentType: 'text/html', body: '<html>proxy</html>' }, 'failed', 'malformed_provider_response'],
    ['non-JSON text', textAnswer('Here is your report: the sink leaks.'), 'invalid', 'not_json'],
  ];
  for (const [what, answer, kind, reason] of table) {
    it(`maps ${what} to ${kind} (R24)`, async () => {
      suite.fake.setDefault(answer);
      const error = await failure(suite.generator.generate(input()));
      expect(error.kind).to.equal(kind);
      expect(error.reason).to.equal(reason);
    });
  }

  it('an answer cut at the per-request limit (finishReason CONTINUATION) is one billed request, truncated: the SDK is not left to ask again on its own (R24, R43)', async () => {
    suite.fake.setDefault(continuationAnswer());
    const error = await failure(suite.generator.generate(input()));
    expect(error).to.include({ kind: 'failed', reason: 'truncated' });
    expect(suite.fake.requests, 'one generateContent request, not one per continuation token').to.have.length(1);
  });

  it("images past the Developer API's 20 MB request limit are Google's 400: failed, after one request, no fallback (R24, R42; src/generation/README.md, inline images)", async () => {
    // Eight noisy normalized images of 2 MiB each: 16 MiB, about 21.3 MiB in base64.
    const noisy = Buffer.alloc(2 * 1024 * 1024);
    for (let i = 0; i < noisy.length; i++) noisy[i] = (i * 2654435761) >>> 24;
    const images = Array.from({ length: 8 }, () => image('image/png', Buffer.concat([PNG_BYTES, noisy]), 2048, 2048));
    const withFallback = await geminiGenerator(suite.fake.baseUrl, { models: [TEST_MODEL, `${TEST_MODEL}-lite`] });
    const error = await failure(withFallback.generate(input({ images })));
    expect(error).to.include({ kind: 'failed', reason: 'http_400' });
    expect(suite.fake.requests, 'a 400 is not tried again, nor on the fallback model (R42)').to.have.length(1);
    expect(suite.fake.refused[0]?.message).to.match(/^Request payload size exceeds the limit/);
  });

  it('maps an unreachable endpoint to unavailable (R24)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const unreachable = await geminiGenerator(`http://127.0.0.1:${port}`);
    const error = await failure(unreachable.generate(input()));
    expect(error).to.include({ kind: 'unavailable', reason: 'unreachable' });
  });

  const unrepresentable: [string, unknown][] = [
    ['an invalid category', { ...VALID_REPORT, category: 'hvac' }],
    ['an invalid priority', { ...VALID_REPORT, priority: 'critical' }],
    ['confidence 1.5', { ...VALID_REPORT, confidence: 1.5 }],
    ['a missing field', { ...VALID_REPORT, confidence: undefined }],
    ['a JSON array', [VALID_REPORT]],
  ];
  for (const [what, report] of unrepresentable) {
    it(`maps JSON with ${what} to invalid through toReportResult (R24)`, async () => {
      suite.fake.enqueue(reportAnswer(report));
      const error = await failure(suite.generator.generate(input()));
      expect(error.kind).to.equal('invalid');
    });
  }

  it('drops extra fields of a Gemini answer so they never leak (R24)', async () => {
    suite.fake.enqueue(reportAnswer({ ...VALID_REPORT, debug: 'internal chain of thought', price: 0.002 }));
    const result = validator.toReportResult((await suite.generator.generate(input())).candidate);
    expect(result).to.deep.equal(VALID_REPORT);
    expect(JSON.stringify(result)).not.to.contain('internal chain of thought');
  });
});
