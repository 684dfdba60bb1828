// R38: bytes are decoded before they are accepted. Truncated data, a valid signature followed by
// garbage, and a decompression bomb are refused (422 remote_evidence_image_rejected) with a
// fixed reason, and the bomb is refused from its header, before any of its pixels are decoded.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { ImageRefusal, REJECTED_REASONS, SharpImageNormalizer } from '../../../src/images/index.ts';
import { FIXTURES } from '../../support/images/fixtures.ts';
import { jpegBomb, phonePhoto, PNG_SIGNATURE, pngBomb, polyglot, transparentPng, truncated } from '../../support/images/made-images.ts';
import { rejectionOf } from '../../support/rejection.ts';

const normalizer = new SharpImageNormalizer({ maxDimension: 512, maxPixels: 40_000_000 });

describe('decode before accepting: truncated, polyglot and bomb images are refused (R38)', function () {
  this.timeout(20_000);

  it('a truncated JPEG is rejected (truncated)', async () => {
    const photo = await phonePhoto({ width: 640, height: 480 });
    const error = await rejectionOf(normalizer.normalize(truncated(photo), 'image/jpeg'), ImageRefusal);
    expect([error.kind, error.reason]).to.deep.equal(['rejected', 'truncated']);
    // Even the last two bytes (the end-of-image marker) missing is a truncated file.
    const cut = await rejectionOf(normalizer.normalize(photo.subarray(0, photo.length - 2), 'image/jpeg'), ImageRefusal);
    expect([cut.kind, cut.reason]).to.deep.equal(['rejected', 'truncated']);
  });

  it('a truncated PNG is rejected (truncated)', async () => {
    const png = await sharp(await phonePhoto({ width: 300, height: 200 })).png().toBuffer();
    const error = await rejectionOf(normalizer.normalize(truncated(png), 'image/png'), ImageRefusal);
    expect([error.kind, error.reason]).to.deep.equal(['rejected', 'truncated']);
    const alpha = await transparentPng(300, 200);
    const cutAlpha = await rejectionOf(normalizer.normalize(alpha.subarray(0, alpha.length - 20), 'image/png'), ImageRefusal);
    expect(cutAlpha.kind).to.equal('rejected');
  });

  for (const [type, signature] of [
    ['image/png', PNG_SIGNATURE],
    ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0])],
    ['image/gif', Buffer.from('GIF89a', 'latin1')],
    ['image/webp', Buffer.from('RIFF\x40\x00\x00\x00WEBPVP8 ', 'latin1')],
  ] as const) {
    it(`a polyglot: the ${type} signature followed by garbage is rejected (undecodable)`, async () => {
      const error = await rejectionOf(normalizer.normalize(polyglot(signature), type), ImageRefusal);
      expect(error.kind).to.equal('rejected');
      expect(['undecodable', 'truncated']).to.include(error.reason);
    });
  }

  it('a real JPEG with a payload appended after it is accepted, and the payload does not go on', async () => {
    const photo = await phonePhoto({ width: 200, height: 100 });
    const payload = Buffer.from('PK\x03\x04 secret.zip appended after the end-of-image marker', 'latin1');
    const { normalized } = await normalizer.normalize(Buffer.concat([photo, payload]), 'image/jpeg');
    expect(normalized.bytes.includes(Buffer.from('secret.zip'))).to.equal(false);
  });

  it('a PNG bomb (30000 x 30000 declared in a few KB) is refused from its header (too_many_pixels), in bounded time and memory', async () => {
    const bomb = pngBomb(30_000, 30_000);
    expect(bomb.length).to.be.below(16 * 1024);
    // The resident size sampled while it runs (the decoder works on another thread): the process's
    // lifetime peak (resourceUsage().maxRSS) would hide any growth below the suite's own peak.
    const rssBefore = process.memoryUsage.rss();
    let rssPeak = rssBefore;
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 1);
    const started = performance.now();
    let error: ImageRefusal;
    try {
      error = await rejectionOf(normalizer.normalize(bomb, 'image/png'), ImageRefusal);
    } finally {
      clearInterval(sampler);
      rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
    }
    const elapsedMs = performance.now() - started;
    // Its data holds four rows: had the decoder gone past the header, it would have failed as
    // truncated. Decoding it would take 2.5 GiB and many seconds; the bounds below are loose on purpose.
    expect([error.kind, error.reason]).to.deep.equal(['rejected', 'too_many_pixels']);
    expect(elapsedMs, 'milliseconds').to.be.below(2_000);
    expect((rssPeak - rssBefore) / 2 ** 20, 'peak RSS growth, MiB').to.be.below(128);
  });

  it('a JPEG whose frame header declares 60000 x 60000 is refused the same way', async () => {
    const error = await rejectionOf(normalizer.normalize(await jpegBomb(60_000, 60_000), 'image/jpeg'), ImageRefusal);
    expect([error.kind, error.reason]).to.deep.equal(['rejected', 'too_many_pixels']);
  });

  it('IMAGE_MAX_PIXELS is the bound: one pixel over it is refused, at it is accepted', async () => {
    const photo = await phonePhoto({ width: 100, height: 80 });
    const exact = new SharpImageNormalizer({ maxDimension: 512, maxPixels: 8_000 });
    expect((await exact.normalize(photo, 'image/jpeg')).normalized.width).to.equal(100);
    const under = new SharpImageNormalizer({ maxDimension: 512, maxPixels: 7_999 });
    expect((await rejectionOf(under.normalize(photo, 'image/jpeg'), ImageRefusal)).reason).to.equal('too_many_pixels');
  });

  it('bytes of another format than the one sniffed are refused (content_mismatch); SVG and TIFF have no decoder at all', async () => {
    const png = readFileSync(`${FIXTURES}/tiny.png`);
    expect((await rejectionOf(normalizer.normalize(png, 'image/jpeg'), ImageRefusal)).reason).to.equal('content_mismatch');
    const svg = readFileSync(`${FIXTURES}/image.svg`);
    expect((await rejectionOf(normalizer.normalize(svg, 'image/png'), ImageRefusal)).kind).to.equal('rejected');
    const tiff = await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).tiff().toBuffer();
    expect((await rejectionOf(normalizer.normalize(tiff, 'image/jpeg'), ImageRefusal)).kind).to.equal('rejected');
  });

  it('every reason used is one of the closed list, and no library message is kept on the refusal', async () => {
    const error = await rejectionOf(normalizer.normalize(polyglot(Buffer.from([0xff, 0xd8, 0xff])), 'image/jpeg'), ImageRefusal);
    expect(REJECTED_REASONS).to.include(error.reason);
    expect(error.message).to.equal('One or more remote evidence images could not be accepted safely.');
    expect(error.cause).to.equal(undefined);
    expect(JSON.stringify({ ...error, stack: undefined })).not.to.match(/vips|jpeg:|marker|corrupt/i);
  });
});
