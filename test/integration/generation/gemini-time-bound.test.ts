// Bounded time (R24, R33): the whole Gemini call ends within GENERATOR_TIMEOUT_MS, whatever the
// provider does (no answer, a slow answer, an answer whose body stalls), and the caller's
// abort stops it at once. The margins are bounds, not speed goals. R24: a timeout is
// 'unavailable' (503 report_generation_unavailable).
import { expect } from 'chai';
import { GenerationError } from '../../../src/generation/report-generator.ts';
import { reportAnswer, startFakeGemini } from '../../support/generation/fake-gemini-server.ts';
import type { FakeGemini } from '../../support/generation/fake-gemini-server.ts';
import { geminiGenerator, input } from '../../support/generation/helpers.ts';

const TIMEOUT_MS = 600;
const MARGIN_MS = 250;

async function timed(promise: Promise<unknown>): Promise<{ error: unknown; elapsed: number }> {
  const started = performance.now();
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, elapsed: performance.now() - started };
}

describe('Gemini generator: the call ends within GENERATOR_TIMEOUT_MS (R24)', () => {
  let fake: FakeGemini;
  before(async () => {
    fake = await startFakeGemini();
  });
  afterEach(() => fake.reset());
  after(() => fake.stop());

  it('cuts a provider that never answers at the timeout, as unavailable/timeout (R24)', async () => {
    fake.setDefault({ kind: 'stall' });
    const generator = await geminiGenerator(fake.baseUrl, { timeoutMs: TIMEOUT_MS });
    const { error, elapsed } = await timed(generator.generate(input()));
    expect(error).to.be.instanceOf(GenerationError);
    expect(error).to.include({ kind: 'unavailable', reason: 'timeout' });
    expect(elapsed).to.be.within(TIMEOUT_MS - 20, TIMEOUT_MS + MARGIN_MS);
  });

  it('cuts a slow answer at the timeout instead of waiting for it (R24)', async () => {
    fake.setDefault(reportAnswer(undefined, 3_000));
    const generator = await geminiGenerator(fake.baseUrl, { timeoutMs: TIMEOUT_MS });
    const { error, elapsed } = await timed(generator.generate(input()));
    expect(error).to.include({ kind: 'unavailable', reason: 'timeout' });
    expect(elapsed).to.be.below(TIMEOUT_MS + MARGIN_MS);
  });

  it('bounds the reading of the answer too: a body that stalls is cut at the timeout (R24)', async () => {
    fake.setDefault({ kind: 'stallBody' });
    const generator = await geminiGenerator(fake.baseUrl, { timeoutMs: TIMEOUT_MS });
    const { error, elapsed } = await timed(generator.generate(input()));
    expect(error).to.include({ kind: 'unavailable', reason: 'timeout' });
    expect(elapsed).to.be.below(TIMEOUT_MS + MARGIN_MS);
  });

  it('answers normally when the provider is slow but within the timeout (R24)', async () => {
    fake.setDefault(reportAnswer(undefined, 200));
    const generator = await geminiGenerator(fake.baseUrl, { timeoutMs: 2_000 });
    const output = await generator.generate(input());
    expect(output.latencyMs).to.be.at.least(190);
  });

  it('stops at once when the caller aborts, as unavailable/aborted (the caller\'s signal passes through) (R24)', async () => {
    fake.setDefault({ kind: 'stall' });
    const generator = await geminiGenerator(fake.baseUrl, { timeoutMs: 5_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { error, elapsed } = await timed(generator.generate(input(), controller.signal));
    expect(error).to.include({ kind: 'unavailable', reason: 'aborted' });
    expect(elapsed).to.be.below(100 + MARGIN_MS);
  });

  it('sends nothing when the caller has already aborted (R24)', async () => {
    const generator = await geminiGenerator(fake.baseUrl);
    const { error } = await timed(generator.generate(input(), AbortSignal.abort()));
    expect(error).to.include({ kind: 'unavailable', reason: 'aborted' });
    expect(fake.requests).to.have.lengthOf(0);
  });
});
