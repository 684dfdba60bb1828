// R39: what the Gemini adapter declares it holds per image (imageCopyBytes, reserved on
// the image byte budget before step 8) covers what it really sends: the request body is one of
// the three base64 copies it counts, plus the prompt and schema.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { base64Length } from '../../../src/generation/gemini-generator.ts';
import type { GeminiReportGenerator } from '../../../src/generation/gemini-generator.ts';
import { startFakeGemini } from '../../support/generation/fake-gemini-server.ts';
import type { FakeGemini } from '../../support/generation/fake-gemini-server.ts';
import { geminiGenerator, image, input } from '../../support/generation/helpers.ts';

describe('Gemini generator: the image copies it declares cover the request it sends (R39)', () => {
  let fake: FakeGemini;
  let generator: GeminiReportGenerator;
  before(async () => {
    fake = await startFakeGemini();
    generator = await geminiGenerator(fake.baseUrl);
  });
  after(() => fake.stop());

  it('base64 of n bytes is 4 * ceil(n / 3) characters', () => {
    for (const n of [0, 1, 2, 3, 4, 300_001]) expect(base64Length(n)).to.equal(Buffer.alloc(n).toString('base64').length);
  });

  it('declares three base64 copies per image, and the body it sends is one of them plus a few KB of prompt and schema', async () => {
    const images = [image('image/jpeg', randomBytes(300_001), 2048, 1536), image('image/png', randomBytes(120_000), 800, 800)];
    const declared = images.reduce((sum, i) => sum + generator.imageCopyBytes({ sizeBytes: i.sizeBytes }), 0);
    const base64 = images.reduce((sum, i) => sum + base64Length(i.sizeBytes), 0);
    expect(declared).to.equal(3 * base64);
    await generator.generate(input({ images }));
    const body = Buffer.byteLength(fake.requests[0]?.rawBody ?? '');
    expect(body).to.be.above(base64);
    expect(body).to.be.below(declared / 3 + 16 * 1024);
  });
});
