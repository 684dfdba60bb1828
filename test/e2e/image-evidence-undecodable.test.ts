// Decode before accepting, through the whole service (R38, R23): bytes whose first
// bytes are right but that do not decode (truncated JPEG and PNG, a signature followed by
// garbage) and decompression bombs give 422 remote_evidence_image_rejected with details
// {imageIndex} only; no report, no unit, nothing sent to the generator, nothing internal said.
import { expect } from 'chai';
import sharp from 'sharp';
import { createCustomerFixture } from '../support/database.ts';
import { client } from '../support/http-client.ts';
import { useService } from '../support/use-service.ts';
import { startFakeGemini, type FakeGemini } from '../support/generation/fake-gemini-server.ts';
import type { ImageServer } from '../support/images/image-server.ts';
import { serve } from '../support/images/image-server.ts';
import { jpegBomb, phonePhoto, PNG_SIGNATURE, pngBomb, polyglot, truncated } from '../support/images/made-images.ts';
import { geminiEnv } from '../support/e2e/gemini-service.ts';
import { startImageHost } from '../support/e2e/image-host.ts';
import { expectImageFailure } from '../support/e2e/image-failure.ts';

describe('images that do not decode, and bombs, give 422 remote_evidence_image_rejected through the whole service (R38)', function () {
  this.timeout(60_000);
  let host: ImageServer;
  let gemini: FakeGemini;
  let cases: { path: string; type: string; bytes: Buffer }[];
  // In the order of `cases` (the titles are needed before the files are made).

  before(async () => {
    const photo = await phonePhoto({ width: 800, height: 600 });
    const png = await sharp(photo).png().toBuffer();
    cases = [
      { path: '/cut.jpg', type: 'image/jpeg', bytes: truncated(photo) },
      { path: '/cut.png', type: 'image/png', bytes: truncated(png) },
      { path: '/polyglot.png', type: 'image/png', bytes: polyglot(PNG_SIGNATURE) },
      { path: '/polyglot.jpg', type: 'image/jpeg', bytes: polyglot(Buffer.from([0xff, 0xd8, 0xff])) },
      { path: '/bomb.png', type: 'image/png', bytes: pngBomb(30_000, 30_000) },
      { path: '/bomb.jpg', type: 'image/jpeg', bytes: await jpegBomb(60_000, 60_000) },
    ];
    host = await startImageHost({ extraRoutes: Object.fromEntries(cases.map((c) => [c.path, serve(c.bytes, c.type)])) });
    gemini = await startFakeGemini();
  });
  const app = useService(() => ({ REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32', ...geminiEnv(gemini) }));
  after(async () => {
    await gemini?.stop();
    await host?.close();
  });

  for (const [n, name] of ['a truncated JPEG', 'a truncated PNG', 'a PNG polyglot', 'a JPEG polyglot', 'a PNG bomb', 'a JPEG bomb'].entries()) {
    const index = n % 3;
    it(`${name}: 422 with details {imageIndex: ${index}}, nothing stored or generated (R38, R23)`, async () => {
      const c = cases[n]!;
      await expectImageFailure({ serviceUrl: app.service.url, host, gemini, path: c.path, index, code: 'remote_evidence_image_rejected', withText: n % 2 === 0 });
    });
  }

  it('the bomb is answered at once, and the service keeps answering', async () => {
    const customer = await createCustomerFixture();
    const api = client(app.service.url, customer.apiKey);
    const started = performance.now();
    const res = await api.createReport({ context: 'damage_report', evidence: { images: [{ url: host.url('/bomb.png') }] } });
    expect(res.status).to.equal(422);
    // Decoding 900 million pixels would take minutes and GBs; refusing from the header, well under a second.
    expect(performance.now() - started, 'milliseconds').to.be.below(3_000);
    const ok = await api.createReport({ context: 'damage_report', evidence: { text: 'Cracked tile in the lobby.' } });
    expect(ok.status, ok.text).to.equal(201);
  });
});
