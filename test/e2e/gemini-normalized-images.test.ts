// Images as phones send them, through the whole service with the Gemini adapter against the
// recording fake (R22, R38): what reaches Gemini is each image's normalized form only
// (upright, no metadata block, so no GPS; sRGB; one frame; scaled down, never up), and the
// stored report keeps the facts of the original and of the normalized form, never bytes.
import { expect } from 'chai';
import sharp from 'sharp';
import { createCustomerFixture } from '../support/database.ts';
import { client } from '../support/http-client.ts';
import { sentData, sentImages } from '../support/generation/gemini-request-inspection.ts';
import type { ImageServer } from '../support/images/image-server.ts';
import { serve } from '../support/images/image-server.ts';
import { animation, cmykJpeg, phonePhoto, png16, transparentPng } from '../support/images/made-images.ts';
import { decodedMetadata, metadataBlocks } from '../support/images/metadata-blocks.ts';
import { startImageHost } from '../support/e2e/image-host.ts';
import { expectCleanLog, startGeminiRun, stopGeminiRun, type GeminiRun } from '../support/e2e/gemini-service.ts';
import { storedReport } from '../support/e2e/stored-reports.ts';

const MAX = 512;

interface Made {
  readonly path: string;
  readonly type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';
  readonly bytes: Buffer;
  /** Pixel size as stored in the original, and as sent: type, width, height. */
  readonly original: [number, number];
  readonly sent: [string, number, number];
}

describe('Gemini end to end: phone photos reach the generator normalized, and only so (R22, R38)', function () {
  this.timeout(60_000);
  let run: GeminiRun;
  let host: ImageServer;
  let made: Made[];
  const customerKeys: string[] = [];

  before(async () => {
    made = [
      { path: '/phone.jpg', type: 'image/jpeg', bytes: await phonePhoto({ width: 1600, height: 1200, orientation: 6 }), original: [1600, 1200], sent: ['image/jpeg', 384, 512] },
      { path: '/alpha.png', type: 'image/png', bytes: await transparentPng(800, 400), original: [800, 400], sent: ['image/png', 512, 256] },
      { path: '/moving.gif', type: 'image/gif', bytes: await animation('gif', 3), original: [48, 32], sent: ['image/jpeg', 48, 32] },
      { path: '/moving.webp', type: 'image/webp', bytes: await animation('webp', 2), original: [48, 32], sent: ['image/jpeg', 48, 32] },
      { path: '/print.jpg', type: 'image/jpeg', bytes: await cmykJpeg(600, 300), original: [600, 300], sent: ['image/jpeg', 512, 256] },
      { path: '/deep.png', type: 'image/png', bytes: await png16(300, 200), original: [300, 200], sent: ['image/jpeg', 300, 200] },
      { path: '/small.jpg', type: 'image/jpeg', bytes: await phonePhoto({ width: 120, height: 80 }), original: [120, 80], sent: ['image/jpeg', 120, 80] },
    ];
    host = await startImageHost({ extraRoutes: Object.fromEntries(made.map((m) => [m.path, serve(m.bytes, m.type)])) });
    run = await startGeminiRun({ IMAGE_MAX_DIMENSION: String(MAX), IMAGE_MAX_BYTES: String(16 * 1024 * 1024) });
  });
  after(async () => {
    await stopGeminiRun(run);
    await host?.close();
  });

  it('seven real images in one request: Gemini gets each one upright, scaled, one frame, sRGB, with no metadata block', async () => {
    const customer = await createCustomerFixture();
    customerKeys.push(customer.apiKey);
    const res = await client(run.service.url, customer.apiKey).createReport<{ id: string }>({
      context: 'damage_report',
      evidence: { text: 'Photos of the water damage in flat 3B.', images: made.map((m) => ({ url: host.url(m.path) })) },
    });
    expect(res.status, res.text).to.equal(201);
    expect(run.gemini.requests).to.have.length(1);
    const request = run.gemini.requests[0]!;
    const inline = sentImages(request);
    expect(inline).to.have.length(made.length);

    for (const [n, part] of inline.entries()) {
      const m = made[n]!;
      const bytes = Buffer.from(part.data, 'base64');
      const meta = await sharp(bytes, { animated: true }).metadata();
      const [type, width, height] = m.sent;
      expect(part.mimeType, m.path).to.equal(type);
      expect(part.mimeType, m.path).to.equal(`image/${meta.format}`);
      expect([meta.width, meta.height, meta.pages ?? 1], `${m.path}: pixel size and one frame`).to.deep.equal([width, height, 1]);
      expect([meta.space, meta.depth], `${m.path}: 8-bit sRGB`).to.deep.equal(['srgb', 'uchar']);
      expect(metadataBlocks(bytes), `${m.path}: metadata blocks`).to.deep.equal([]);
      expect(await decodedMetadata(bytes), `${m.path}: metadata read by libvips`).to.deep.equal([]);
      expect(bytes.equals(m.bytes), `${m.path} is the original`).to.equal(false);
    }
    expect((await sharp(Buffer.from(inline[1]!.data, 'base64')).metadata()).hasAlpha, 'the PNG keeps its transparency').to.equal(true);

    // Nothing of the photo's EXIF (GPS included), XMP, IPTC or comment anywhere in what Gemini
    // received: neither in the decoded images nor in the rest of the request.
    let text = request.rawBody;
    for (const part of inline) text = text.replace(part.data, '');
    const everything = Buffer.concat([Buffer.from(text), ...inline.map((p) => Buffer.from(p.data, 'base64'))]);
    for (const trace of ['Exif\0\0', 'ExamplePhone', 'Jane Tenant', 'Example Street', 'Photoshop 3.0', 'ICC_PROFILE', 'xmpmeta']) {
      expect(everything.includes(Buffer.from(trace, 'latin1')), `${trace} reached Gemini`).to.equal(false);
    }
    expect(text).not.to.match(/GPS|latitude|47\/1/i);
    const data = sentData(request);
    expect((data.images as { width: number }[]).map((i) => i.width)).to.deep.equal(made.map((m) => m.sent[1]));

    const stored = await storedReport(customer.customerId, res.body.id);
    expect(stored.images.map((i) => i.index)).to.deep.equal(made.map((_, n) => n));
    for (const [n, image] of stored.images.entries()) {
      const m = made[n]!;
      const sent = Buffer.from(inline[n]!.data, 'base64');
      expect(image.original, m.path).to.deep.include({ mimeType: m.type, sizeBytes: m.bytes.length, width: m.original[0], height: m.original[1] });
      expect(image.original.sha256).to.match(/^[0-9a-f]{64}$/);
      expect(image.normalized, m.path).to.deep.equal({ mimeType: inline[n]!.mimeType, sizeBytes: sent.length, width: m.sent[1], height: m.sent[2] });
    }
  });

  it('the log names neither a key nor the model in ordinary lines (R26)', () => {
    expectCleanLog(run, customerKeys);
  });
});
