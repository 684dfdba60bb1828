// R24: at most ONE retry, only for a transient failure ('unavailable': 429, 5xx, a connection
// never made; never a connection lost once made, R42), only when enough time remains, and always
// inside GENERATOR_TIMEOUT_MS. The SDK adds no retry of its own (it retries only with
// httpOptions.retryOptions, never set): the fake's request log counts every HTTP request the
// adapter makes.
import { expect } from 'chai';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import { blockedPromptAnswer, errorAnswer, reportAnswer, startFakeGemini, textAnswer } from '../../support/generation/fake-gemini-server.ts';
import type { FakeGemini } from '../../support/generation/fake-gemini-server.ts';
import { geminiGenerator, input } from '../../support/generation/helpers.ts';

async function outcome(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => value,
    (e: unknown) => e,
  );
}

describe('Gemini generator: one retry, transient failures only, within the deadline (R24)', () => {
  let fake: FakeGemini;
  before(async () => {
    fake = await startFakeGemini();
  });
  afterEach(() => fake.reset());
  after(() => fake.stop());

  for (const status of [503, 500, 429]) {
    it(`retries once after HTTP ${status} and returns the second answer (R24)`, async () => {
      fake.enqueue(errorAnswer(status), reportAnswer());
      const output = await (await geminiGenerator(fake.baseUrl)).generate(input());
      expect(output.generator).to.equal('gemini');
      expect(fake.requests).to.have.lengthOf(2);
      expect(fake.requests[1]?.rawBody).to.equal(fake.requests[0]?.rawBody);
    });
  }

  it('does not retry a connection dropped after the request arrived: it may have been answered, and billed (R42, R24)', async () => {
    fake.enqueue({ kind: 'destroy' }, reportAnswer());
    const error = await outcome((await geminiGenerator(fake.baseUrl)).generate(input()));
    expect(error).to.include({ kind: 'unavailable', reason: 'connection_lost' });
    expect(fake.requests).to.have.lengthOf(1);
  });

  it('gives up after the one retry: two 503s are unavailable, with exactly two requests (no SDK retry) (R24)', async () => {
    fake.setDefault(errorAnswer(503));
    const error = await outcome((await geminiGenerator(fake.baseUrl)).generate(input()));
    expect(error).to.be.instanceOf(GenerationError);
    expect(error).to.include({ kind: 'unavailable', reason: 'http_503' });
    expect(fake.requests).to.have.lengthOf(2);
  });

  for (const [what, answer] of [
    ['HTTP 400', errorAnswer(400)],
    ['HTTP 403', errorAnswer(403)],
    ['a safety block', blockedPromptAnswer()],
    ['non-JSON text', textAnswer('not json')],
  ] as const) {
    it(`does not retry ${what} (not transient) (R24)`, async () => {
      fake.setDefault(answer);
      const error = await outcome((await geminiGenerator(fake.baseUrl)).generate(input()));
      expect(error).to.be.instanceOf(GenerationError);
      expect(fake.requests).to.have.lengthOf(1);
    });
  }

  it('does not retry when too little time remains: the 503 is the answer, before the deadline (R24)', async () => {
    fake.enqueue(errorAnswer(503, 700), reportAnswer());
    const generator = await geminiGenerator(fake.baseUrl, { timeoutMs: 1_000, minRetryWindowMs: 500 });
    const started = performance.now();
    const error = await outcome(generator.generate(input()));
    expect(error).to.include({ kind: 'unavailable', reason: 'http_503' });
    expect(fake.requests).to.have.lengthOf(1);
    expect(performance.now() - started).to.be.below(1_000);
  });

  it('keeps the retry inside the deadline: a retry that stalls is cut at the timeout (R24)', async () => {
    fake.enqueue(errorAnswer(503), { kind: 'stall' });
    const generator = await geminiGenerator(fake.baseUrl, { timeoutMs: 800, minRetryWindowMs: 200 });
    const started = performance.now();
    const error = await outcome(generator.generate(input()));
    const elapsed = performance.now() - started;
    expect(error).to.include({ kind: 'unavailable', reason: 'timeout' });
    expect(fake.requests).to.have.lengthOf(2);
    // At the one deadline: well short of two (1,600 ms), the margin a loaded CI's event loop needs.
    expect(elapsed).to.be.within(780, 800 + 600);
  });

  it('does not retry a timeout: no time remains by definition (R24)', async () => {
    fake.setDefault({ kind: 'stall' });
    const generator = await geminiGenerator(fake.baseUrl, { timeoutMs: 400 });
    const error = await outcome(generator.generate(input()));
    expect(error).to.include({ kind: 'unavailable', reason: 'timeout' });
    expect(fake.requests).to.have.lengthOf(1);
  });
});
