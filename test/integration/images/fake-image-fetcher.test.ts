import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { BudgetLease, ByteBudget, FakeImageFetcher, ImageFetchError, TINY_PNG } from '../../../src/images/index.ts';
import { JPEG } from '../../support/images/fixtures.ts';

describe('fake image fetcher: canned images and failures for unit tests of other modules (style 5)', () => {
  it('returns the default tiny PNG for unknown URLs, with size and sha256, and records calls', async () => {
    const fake = new FakeImageFetcher();
    const [image] = await fake.fetch(['https://a.example/x.png']);
    expect(image?.mimeType).to.equal('image/png');
    expect(image?.bytes.equals(TINY_PNG.bytes)).to.equal(true);
    expect(image?.sha256).to.equal(createHash('sha256').update(TINY_PNG.bytes).digest('hex'));
    expect(fake.calls).to.deep.equal([['https://a.example/x.png']]);
  });

  it('returns canned images by URL', async () => {
    const fake = new FakeImageFetcher({ images: { 'https://a.example/j': { bytes: JPEG, mimeType: 'image/jpeg' } } });
    const images = await fake.fetch(['https://a.example/p', 'https://a.example/j']);
    expect(images.map((i) => [i.index, i.mimeType, i.sizeBytes])).to.deep.equal([
      [0, 'image/png', TINY_PNG.bytes.length],
      [1, 'image/jpeg', JPEG.length],
    ]);
  });

  it('throws canned ImageFetchError with the index of the URL (R23 kinds)', async () => {
    const fake = new FakeImageFetcher({
      failures: { 'https://a.example/down': { kind: 'unavailable' }, 'https://a.example/bad': { kind: 'rejected', reason: 'too_large' } },
    });
    const error = await fake.fetch(['https://a.example/ok', 'https://a.example/bad', 'https://a.example/down']).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ImageFetchError);
    expect(error).to.include({ kind: 'rejected', reason: 'too_large', imageIndex: 1 });
  });

  it("counts the canned bytes on the caller's lease and hands each image to the caller's process step, like the real one (R39)", async () => {
    const budget = new ByteBudget(TINY_PNG.bytes.length * 2);
    const lease = new BudgetLease(budget);
    const fake = new FakeImageFetcher();
    const sizes = await fake.fetch(['https://a.example/1', 'https://a.example/2'], undefined, { lease, process: async (image) => image.sizeBytes });
    expect(sizes).to.deep.equal([TINY_PNG.bytes.length, TINY_PNG.bytes.length]);
    expect(budget.used).to.equal(TINY_PNG.bytes.length * 2);
    const over = await fake.fetch(['https://a.example/3'], undefined, { lease }).catch((e: unknown) => e);
    expect(over).to.include({ kind: 'unavailable', reason: 'budget', imageIndex: 0 });
    lease.releaseAll();
    expect(budget.used).to.equal(0);
  });
});
