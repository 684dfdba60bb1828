// R39: the byte budget counts every copy a request holds, and
// one object owns the bytes and gives their budget back exactly once. Originals are counted
// until their image is normalized; then the normalized bytes and the generator's copies (base64
// parts and request body) until step 8's generator call is over.
import { expect } from 'chai';
import { GeminiReportGenerator } from '../../../src/generation/gemini-generator.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { ByteBudget, BudgetLease, FakeImageFetcher, HttpImageFetcher, ImageBoundary, ImageFetchError, SharpImageNormalizer } from '../../../src/images/index.ts';
import type { ImageNormalizer } from '../../../src/images/index.ts';
import { ApiError } from '../../../src/errors/catalogue.ts';
import { UseCaseHarness } from '../../support/unit/use-case.ts';
import { phonePhoto, polyglot } from '../../support/images/made-images.ts';

const URLS = ['https://img.example/a.jpg', 'https://img.example/b.jpg'];
const copies = (size: number): number => GeminiReportGenerator.prototype.imageCopyBytes({ sizeBytes: size });

describe('image budget: every copy counted, one owner, released exactly once (R39)', function () {
  this.timeout(20_000);
  let photos: Buffer[];
  let fetcher: FakeImageFetcher;
  const sharpNormalizer = new SharpImageNormalizer({ maxDimension: 256, maxPixels: 40_000_000 });

  before(async () => {
    photos = [await phonePhoto({ width: 900, height: 600 }), await phonePhoto({ width: 600, height: 900 })];
    fetcher = new FakeImageFetcher({
      images: Object.fromEntries(URLS.map((url, i) => [url, { bytes: photos[i]!, mimeType: 'image/jpeg' as const }])),
    });
  });

  it("the Gemini adapter's copies are three base64 texts of the image: parts, JSON body, encoded body", () => {
    expect(copies(3)).to.equal(12);
    expect(copies(1_000_000)).to.equal(3 * 4 * Math.ceil(1_000_000 / 3));
  });

  it('an original leaves the budget as soon as it is normalized; then its normalized bytes and copies are counted', async () => {
    const budget = new ByteBudget(64 * 1024 * 1024);
    const seen: number[] = [];
    const spying: ImageNormalizer = {
      normalize: (bytes, type, signal) => {
        seen.push(budget.used);
        return sharpNormalizer.normalize(bytes, type, signal);
      },
    };
    const boundary = new ImageBoundary({ fetcher, normalizer: spying, budget, generatorCopyBytes: (image) => copies(image.sizeBytes) });
    using images = await boundary.acquire(URLS);
    const [first, second] = images.accepted;
    const held = (image: typeof first) => image!.normalized.sizeBytes + copies(image!.normalized.sizeBytes);
    expect(seen[0], 'while image 0 is normalized: its original').to.equal(photos[0]!.length);
    expect(seen[1], 'while image 1 is normalized: image 0 normalized, image 1 original').to.equal(held(first) + photos[1]!.length);
    expect(budget.used, 'after: normalized bytes and copies only').to.equal(held(first) + held(second));
    expect(images.heldBytes).to.equal(budget.used);
    expect(budget.used, 'far below the originals in base64').to.be.below(copies(photos[0]!.length + photos[1]!.length) / 3);
  });

  it('disposing gives the budget back once: a second dispose takes nothing from other requests', async () => {
    const budget = new ByteBudget(64 * 1024 * 1024);
    const boundary = new ImageBoundary({ fetcher, normalizer: sharpNormalizer, budget });
    const other = new BudgetLease(budget);
    other.tryReserve(1000);
    const images = await boundary.acquire(URLS);
    expect(images.normalized.map((i) => i.mimeType)).to.deep.equal(['image/jpeg', 'image/jpeg']);
    images[Symbol.dispose]();
    images[Symbol.dispose]();
    expect(budget.used).to.equal(1000);
    expect(images.disposed).to.equal(true);
    expect(() => images.normalized, 'no bytes after release').to.throw(/released/);
    expect(images.accepted, 'the metadata stays').to.have.length(2);
  });

  it('a refused image fails the request at its index and leaves nothing on the budget', async () => {
    const budget = new ByteBudget(64 * 1024 * 1024);
    const bad = new FakeImageFetcher({
      images: { [URLS[0]!]: { bytes: photos[0]!, mimeType: 'image/jpeg' }, [URLS[1]!]: { bytes: polyglot(Buffer.from([0xff, 0xd8, 0xff])), mimeType: 'image/jpeg' } },
    });
    const boundary = new ImageBoundary({ fetcher: bad, normalizer: sharpNormalizer, budget });
    const error = await boundary.acquire(URLS).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ImageFetchError);
    expect(error).to.include({ kind: 'rejected', reason: 'undecodable', imageIndex: 1 });
    expect(budget.used).to.equal(0);
  });

  it("when the normalized bytes and the generator's copies do not fit, the request is unavailable (budget) and holds nothing", async () => {
    // Room for both originals and one decoded 900 x 600 frame at a time: the frames fit, so the
    // exchange of an original for its normalized bytes and copies is what refuses.
    const budget = new ByteBudget(photos[0]!.length + photos[1]!.length + 900 * 600 * 3);
    const boundary = new ImageBoundary({ fetcher, normalizer: sharpNormalizer, budget, generatorCopyBytes: () => budget.limit });
    const error = await boundary.acquire(URLS).catch((e: unknown) => e);
    expect(error).to.include({ kind: 'unavailable', reason: 'budget', imageIndex: 0 });
    expect(budget.used).to.equal(0);
  });

  it('a request whose images do not all fit in the normalization queue is refused before anything is fetched (normalizer_busy)', async () => {
    const budget = new ByteBudget(64 * 1024 * 1024);
    const small = new SharpImageNormalizer({ maxDimension: 256, maxPixels: 40_000_000, concurrency: 1, maxWaiting: 2 });
    const boundary = new ImageBoundary({ fetcher, normalizer: small, budget });
    const held = small.admit(2);
    const calls = fetcher.calls.length;
    const error = await boundary.acquire(URLS).catch((e: unknown) => e);
    expect(error).to.include({ kind: 'unavailable', reason: 'normalizer_busy', imageIndex: 0 });
    expect(fetcher.calls.length, 'nothing fetched').to.equal(calls);
    held![Symbol.dispose]();
    using images = await boundary.acquire(URLS);
    expect(images.accepted).to.have.length(2);
    expect(small.load.admitted, 'the places of a done request are free again').to.equal(0);
  });

  it('a full queue does not hide an unsafe URL: it is refused as such (422) at its own index, before room is asked (R23)', async () => {
    const budget = new ByteBudget(64 * 1024 * 1024);
    const small = new SharpImageNormalizer({ maxDimension: 256, maxPixels: 40_000_000, concurrency: 1, maxWaiting: 2 });
    const hardened = new HttpImageFetcher({ maxBytes: 1024 * 1024, timeoutMs: 1_000, maxRedirects: 0, budget });
    const boundary = new ImageBoundary({ fetcher: hardened, normalizer: small, budget });
    using held = small.admit(2);
    expect(held, 'the queue is full').not.to.equal(undefined);
    const unsafe = ['https://img.example/a.jpg', 'http://169.254.169.254/latest/meta-data/'];
    expect(await boundary.acquire(unsafe).catch((e: unknown) => e)).to.include({ kind: 'rejected', reason: 'blocked_address', imageIndex: 1 });
    const badPort = ['https://img.example:8443/a.jpg'];
    expect(await boundary.acquire(badPort).catch((e: unknown) => e)).to.include({ kind: 'rejected', reason: 'bad_port', imageIndex: 0 });
    // A URL that only the network can judge still waits for room: the full queue answers.
    expect(await boundary.acquire(URLS).catch((e: unknown) => e)).to.include({ kind: 'unavailable', reason: 'normalizer_busy' });
    expect(budget.used).to.equal(0);
  });

  describe('through steps 7 and 8 of the use case', () => {
    // The use case on its unit-tier fakes, with the real image boundary and normalizer.
    const run = async (generator: FakeReportGenerator, budget: ByteBudget) => {
      const h = new UseCaseHarness();
      Object.assign(h, { imageFetcher: fetcher, normalizer: sharpNormalizer, budget, generator });
      h.generatorCopyBytes = (image) => copies(image.sizeBytes);
      const request = { context: 'damage_report' as const, evidence: { text: 'Cracked glass.', images: URLS.map((url) => ({ url })) } };
      const failure = await h.create({ request }).then(
        () => undefined,
        (error: unknown) => error,
      );
      return { failure, stored: h.reports.records[0]?.images };
    };

    it('the generator runs while the images are counted; after step 8 the bytes are gone and the budget is back', async () => {
      const budget = new ByteBudget(64 * 1024 * 1024);
      let during = -1;
      const generator = new (class extends FakeReportGenerator {
        override generate(...args: Parameters<FakeReportGenerator['generate']>) {
          during = budget.used;
          return super.generate(...args);
        }
      })();
      const { failure, stored } = await run(generator, budget);
      expect(failure).to.equal(undefined);
      const expected = (stored ?? []).reduce((sum, i) => sum + i.normalized.sizeBytes + copies(i.normalized.sizeBytes), 0);
      expect(during, 'during the generator call').to.equal(expected);
      expect(budget.used, 'after step 8').to.equal(0);
      expect(stored?.map((i) => [i.original.width, i.normalized.width])).to.deep.equal([[900, 256], [600, 171]]);
      expect(generator.calls[0]!.images.map((i) => [i.width, i.height])).to.deep.equal([[256, 171], [171, 256]]);
    });

    it('a failed generation releases the budget as well', async () => {
      const budget = new ByteBudget(64 * 1024 * 1024);
      const { failure } = await run(new FakeReportGenerator({ error: { kind: 'unavailable' } }), budget);
      expect(failure).to.be.instanceOf(ApiError);
      expect(budget.used).to.equal(0);
    });

    it('a refused image stops at step 7: no generator call, nothing held', async () => {
      // Room for the first original alone: its decoded frame could never fit (R23 oversize, 422).
      const budget = new ByteBudget(photos[0]!.length);
      const generator = new FakeReportGenerator();
      const { failure, stored } = await run(generator, budget);
      expect((failure as ApiError).code).to.equal('remote_evidence_image_rejected');
      expect(generator.callCount).to.equal(0);
      expect(stored).to.equal(undefined);
      expect(budget.used).to.equal(0);
    });
  });
});
