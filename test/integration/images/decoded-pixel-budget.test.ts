// R39 with R38: the decoded frame is image data the request holds. Its memory (width x height x
// channels x bytes per sample, read from the header; for a progressive JPEG its DCT coefficients
// too) is reserved on the byte budget before libvips decodes, and released when the normalized
// copy exists. Decided before decoding: a
// frame that with its original is larger than the whole budget could never fit and is 422
// remote_evidence_image_rejected (reason `frame_too_large`, R23 oversize); one that would fit an
// empty budget but not the budget as it is now is 503 remote_evidence_image_unavailable (`budget`).
import { expect } from 'chai';
import sharp from 'sharp';
import { ByteBudget, BudgetLease, FakeImageFetcher, ImageBoundary, ImageRefusal, SharpImageNormalizer } from '../../../src/images/index.ts';
import { phonePhoto, png16, transparentPng } from '../../support/images/made-images.ts';

/** A budget that remembers the most it ever held. */
class WatchedBudget extends ByteBudget {
  peak = 0;
  override tryReserve(bytes: number): boolean {
    const ok = super.tryReserve(bytes);
    this.peak = Math.max(this.peak, this.used);
    return ok;
  }
}

const URL_A = 'https://img.example/a';

/** A 16-bit RGBA PNG, made by sharp: 8 bytes a pixel once decoded. */
function png16Rgba(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: { r: 40, g: 120, b: 200, alpha: 0.5 } } }).toColourspace('rgb16').png().toBuffer();
}

describe('decoded pixels on the image byte budget (R38, R39)', function () {
  this.timeout(20_000);
  const normalizer = new SharpImageNormalizer({ maxDimension: 256, maxPixels: 40_000_000 });

  const cases: [string, () => Promise<Buffer>, 'image/jpeg' | 'image/png', number][] = [
    ['an RGB JPEG: 3 bytes a pixel', () => phonePhoto({ width: 900, height: 600 }), 'image/jpeg', 900 * 600 * 3],
    ['an RGBA PNG: 4 bytes a pixel', () => transparentPng(500, 400), 'image/png', 500 * 400 * 4],
    ['a 16-bit PNG: 2 bytes a sample', () => png16(300, 200), 'image/png', 300 * 200 * 2 * 3],
  ];
  for (const [title, make, mimeType, frame] of cases) {
    it(`${title}: the frame is reserved while decoding and released after`, async () => {
      const bytes = await make();
      const budget = new WatchedBudget(64 * 1024 * 1024);
      const lease = new BudgetLease(budget);
      expect(lease.tryReserve(bytes.length)).to.equal(true);
      const { normalized } = await normalizer.normalize(bytes, mimeType, undefined, undefined, lease);
      // The 16-bit PNG may carry alpha or not: at least the frame named, at most with alpha.
      expect(budget.peak - bytes.length, 'reserved for the decoded frame').to.be.at.least(frame);
      expect(budget.peak - bytes.length).to.be.at.most((frame * 4) / 3);
      expect(budget.used, 'after decoding: the original only, the frame given back').to.equal(bytes.length);
      expect(normalized.sizeBytes).to.be.greaterThan(0);
      lease.releaseAll();
    });
  }

  /** A progressive JPEG as a web page's encoder writes one. */
  function progressiveJpeg(width: number, height: number, chromaSubsampling: '4:2:0' | '4:4:4', grey = false): Promise<Buffer> {
    const image = sharp({ create: { width, height, channels: 3, background: { r: 90, g: 140, b: 60 } } });
    return (grey ? image.toColourspace('b-w') : image).jpeg({ quality: 90, progressive: true, chromaSubsampling }).toBuffer();
  }

  // [title, width, height, subsampling, grey, frame bytes, coefficient bytes]
  const progressive: [string, number, number, '4:2:0' | '4:4:4', boolean, number, number][] = [
    // 1.5 samples a pixel (Cb and Cr at a quarter each), 2 bytes a coefficient; 1024 x 640 is whole 16-pixel MCUs.
    ['4:2:0', 1024, 640, '4:2:0', false, 1024 * 640 * 3, 1024 * 640 * 1.5 * 2],
    // 3 samples a pixel, held in whole 8-pixel MCUs: 1001 x 601 is 1008 x 608.
    ['4:4:4, in whole MCUs', 1001, 601, '4:4:4', false, 1001 * 601 * 3, 1008 * 608 * 3 * 2],
    // One component (sharp's metadata calls it 4:4:4): one sample a pixel, not three.
    ['grey', 800, 600, '4:4:4', true, 800 * 600, 800 * 600 * 2],
  ];
  for (const [title, width, height, chroma, grey, frame, coefficients] of progressive) {
    it(`a progressive JPEG (${title}): its DCT coefficients are reserved with the frame, and both released after`, async () => {
      const bytes = await progressiveJpeg(width, height, chroma, grey);
      const header = await sharp(bytes).metadata();
      expect([header.isProgressive, header.channels], 'made as meant').to.deep.equal([true, grey ? 1 : 3]);
      const budget = new WatchedBudget(64 * 1024 * 1024);
      const lease = new BudgetLease(budget);
      expect(lease.tryReserve(bytes.length)).to.equal(true);
      await normalizer.normalize(bytes, 'image/jpeg', undefined, undefined, lease);
      expect(budget.peak - bytes.length).to.equal(frame + coefficients);
      expect(budget.used).to.equal(bytes.length);
      lease.releaseAll();
    });
  }

  it('a frame that with its original is larger than the whole budget is rejected (frame_too_large), before decoding, and the request holds nothing', async () => {
    // 16-bit RGBA: the 320 MB of a 40-megapixel one against the default 192 MiB, at a test's size.
    const png = await png16Rgba(400, 300);
    const header = await sharp(png).metadata();
    expect([header.channels, header.depth], 'made as meant').to.deep.equal([4, 'ushort']);
    const frame = 400 * 300 * 4 * 2;
    // An empty budget, one byte short of the original and its frame: no wait could make room.
    const budget = new WatchedBudget(png.length + frame - 1);
    const fetcher = new FakeImageFetcher({ images: { [URL_A]: { bytes: png, mimeType: 'image/png' } } });
    const boundary = new ImageBoundary({ fetcher, normalizer, budget });
    const error = await boundary.acquire([URL_A]).catch((e: unknown) => e);
    // Permanent (R23 oversize: 422 remote_evidence_image_rejected), not a 503 to retry for ever.
    expect(error).to.include({ kind: 'rejected', reason: 'frame_too_large', imageIndex: 0 });
    expect(budget.peak, 'the original only: nothing was reserved for the frame').to.equal(png.length);
    expect(budget.used).to.equal(0);
  });

  it('a frame that fits an empty budget with its original, to the byte, is accepted', async () => {
    const png = await png16Rgba(400, 300);
    const frame = 400 * 300 * 4 * 2;
    const budget = new ByteBudget(png.length + frame);
    const lease = new BudgetLease(budget);
    expect(lease.tryReserve(png.length)).to.equal(true);
    const { normalized } = await normalizer.normalize(png, 'image/png', undefined, undefined, lease);
    expect(normalized).to.include({ mimeType: 'image/png', width: 256, height: 192 });
    expect(budget.used, 'the frame given back').to.equal(png.length);
    lease.releaseAll();
    // One byte less, and the same image is refused from its header.
    const short = new BudgetLease(new ByteBudget(png.length + frame - 1));
    expect(short.tryReserve(png.length)).to.equal(true);
    const refusal = await normalizer.normalize(png, 'image/png', undefined, undefined, short).catch((e: unknown) => e);
    expect(refusal).to.be.instanceOf(ImageRefusal);
    expect(refusal).to.include({ kind: 'rejected', reason: 'frame_too_large' });
    expect(short.held).to.equal(png.length);
  });

  it('a frame that would fit an empty budget but not now is unavailable (budget), before decoding; once the room is back it is accepted', async () => {
    const photo = await phonePhoto({ width: 1600, height: 1200 });
    // Room for the original and its 1600 x 1200 x 3 decoded bytes, when nothing else is in flight.
    const budget = new ByteBudget(photo.length + 1600 * 1200 * 3);
    const fetcher = new FakeImageFetcher({ images: { [URL_A]: { bytes: photo, mimeType: 'image/jpeg' } } });
    const boundary = new ImageBoundary({ fetcher, normalizer, budget });
    // Another request's images hold part of it now.
    const other = new BudgetLease(budget);
    expect(other.tryReserve(1024 * 1024)).to.equal(true);
    const error = await boundary.acquire([URL_A]).catch((e: unknown) => e);
    expect(error).to.include({ kind: 'unavailable', reason: 'budget', imageIndex: 0 });
    expect(budget.used, 'the refused request holds nothing').to.equal(1024 * 1024);
    other.releaseAll();
    using images = await boundary.acquire([URL_A]);
    expect(images.accepted[0]?.original).to.include({ width: 1600, height: 1200 });
  });

  it('the same image fits once the budget has room for its frame: the reservation is what decided', async () => {
    const photo = await phonePhoto({ width: 1600, height: 1200 });
    const budget = new ByteBudget(photo.length + 1600 * 1200 * 3 + 1024 * 1024);
    const fetcher = new FakeImageFetcher({ images: { [URL_A]: { bytes: photo, mimeType: 'image/jpeg' } } });
    const boundary = new ImageBoundary({ fetcher, normalizer, budget });
    using images = await boundary.acquire([URL_A]);
    expect(images.accepted[0]?.original).to.include({ width: 1600, height: 1200 });
    expect(budget.used, 'the frame is not held after normalization').to.equal(images.heldBytes);
  });

  it("a request's own images take turns for the room of their frames instead of refusing each other (503 for ever on an idle instance)", async () => {
    // Two photos of one request (one lease), normalized at once as the fetcher does (4 at a
    // time): each frame fits the budget with both originals, both frames do not.
    const photos = [await phonePhoto({ width: 1600, height: 1200 }), await phonePhoto({ width: 1600, height: 1200, quality: 80 })] as const;
    const originals = photos[0].length + photos[1].length;
    const frame = 1600 * 1200 * 3;
    const budget = new ByteBudget(originals + frame + frame / 2);
    const twoAtOnce = new SharpImageNormalizer({ maxDimension: 256, maxPixels: 40_000_000, concurrency: 2 });
    const lease = new BudgetLease(budget);
    expect(lease.tryReserve(originals)).to.equal(true);
    const both = await Promise.all(photos.map((photo) => twoAtOnce.normalize(photo, 'image/jpeg', undefined, undefined, lease)));
    expect(both.map(({ original }) => original.width)).to.deep.equal([1600, 1600]);
    expect(lease.held, 'the frames given back').to.equal(originals);
    lease.releaseAll();
    // Room held by another request is still refused at once: only a request's own frames are waited for.
    const other = new BudgetLease(budget);
    expect(other.tryReserve(frame)).to.equal(true);
    const mine = new BudgetLease(budget);
    expect(mine.tryReserve(originals)).to.equal(true);
    const refusal = await twoAtOnce.normalize(photos[0], 'image/jpeg', undefined, undefined, mine).catch((e: unknown) => e);
    expect(refusal).to.include({ kind: 'unavailable', reason: 'budget' });
    other.releaseAll();
    mine.releaseAll();
    expect(budget.used).to.equal(0);
  });
});
