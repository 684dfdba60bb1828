// R39 with R38: the decoded frame is image data the request holds. Its memory (width x height x
// channels x bytes per sample, read from the header) is reserved on the byte budget before
// libvips decodes, and released when the normalized copy exists; a frame that does not fit is
// 503 remote_evidence_image_unavailable (reason `budget`), decided before decoding.
import { expect } from 'chai';
import { ByteBudget, BudgetLease, FakeImageFetcher, ImageBoundary, SharpImageNormalizer } from '../../../src/images/index.ts';
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

  it('a frame that does not fit is refused (unavailable, budget) before decoding, and the request holds nothing', async () => {
    const photo = await phonePhoto({ width: 1600, height: 1200 });
    // Room for the original and much more, but not for 1600 x 1200 x 3 decoded bytes.
    const budget = new ByteBudget(photo.length + 1600 * 1200);
    const fetcher = new FakeImageFetcher({ images: { [URL_A]: { bytes: photo, mimeType: 'image/jpeg' } } });
    const boundary = new ImageBoundary({ fetcher, normalizer, budget });
    const error = await boundary.acquire([URL_A]).catch((e: unknown) => e);
    expect(error).to.include({ kind: 'unavailable', reason: 'budget', imageIndex: 0 });
    expect(budget.used).to.equal(0);
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
});
