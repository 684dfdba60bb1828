// Step 7 through the real app (spec 4.1 remote image rules, rulings R22, R23): an image that
// cannot be accepted safely is 422 remote_evidence_image_rejected, one that cannot be retrieved
// now is 503 remote_evidence_image_unavailable; details carry the image index only. A failed
// fetch generates nothing, stores nothing and gives the key back (R14).
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import type { ImageFetcher } from '../../../src/images/image-fetcher.ts';
import { useService } from '../../support/use-service.ts';
import { customerTotals, SwappableImageFetcher } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const GOOD = 'https://img.example/ok.png';
const BAD = 'https://img.example/bad.png';
const twoImages = { context: 'field_inspection', evidence: { text: 'Cracked tile.', images: [{ url: GOOD }, { url: BAD }] } };

describe('POST /v1/evidence/reports: remote image failures (spec 4.1, R22, R23)', () => {
  const generator = new FakeReportGenerator();
  const imageFetcher = new SwappableImageFetcher(new FakeImageFetcher());

  const app = useService({}, { generator, imageFetcher });
  beforeEach(() => {
    imageFetcher.current = new FakeImageFetcher();
  });

  async function expectNothingAfter(key: string, calls: number): Promise<void> {
    expect(generator.callCount, 'no generator call').to.equal(calls);
    // The key was given back (R14): once the image is fine, the same key makes the report.
    imageFetcher.current = new FakeImageFetcher();
    const retry = await app.client.create(twoImages, { headers: { 'idempotency-key': key } });
    expect(retry.status).to.equal(201);
  }

  it('an image that cannot be accepted safely is 422 remote_evidence_image_rejected with details {imageIndex} (R23)', async () => {
    imageFetcher.current = new FakeImageFetcher({ failures: { [BAD]: { kind: 'rejected', reason: 'blocked_address' } } });
    const calls = generator.callCount;
    const res = await app.client.create(twoImages, { headers: { 'idempotency-key': 'rejected' } });
    expectApiError(res, 'remote_evidence_image_rejected', { imageIndex: 1 });
    await expectNothingAfter('rejected', calls);
  });

  it('an image that cannot be retrieved now is 503 remote_evidence_image_unavailable with details {imageIndex} (R23)', async () => {
    imageFetcher.current = new FakeImageFetcher({ failures: { [GOOD]: { kind: 'unavailable', reason: 'timeout' } } });
    const calls = generator.callCount;
    const res = await app.client.create(twoImages, { headers: { 'idempotency-key': 'unavailable' } });
    expectApiError(res, 'remote_evidence_image_unavailable', { imageIndex: 0 });
    await expectNothingAfter('unavailable', calls);
  });

  it('an unexpected fetcher failure is 503 remote_evidence_image_unavailable, never 500, and says nothing of it (R23)', async () => {
    const broken: ImageFetcher = {
      fetch: async () => {
        throw new Error('connect ECONNREFUSED 10.0.0.7:80 while resolving bad.png');
      },
    };
    imageFetcher.current = broken;
    const calls = generator.callCount;
    const res = await app.client.create(twoImages, { headers: { 'idempotency-key': 'unexpected' } });
    expectApiError(res, 'remote_evidence_image_unavailable');
    expect(res.text).not.to.match(/ECONNREFUSED|10\.0\.0\.7|resolving/);
    await expectNothingAfter('unexpected', calls);
  });

  it('the generator gets the image bytes, never the URLs (spec section 1, R22)', async () => {
    const calls = generator.callCount;
    expect((await app.client.create(twoImages)).status).to.equal(201);
    const input = generator.calls[calls];
    expect(input?.images.map((image) => image.mimeType)).to.deep.equal(['image/png', 'image/png']);
    expect(input?.images.every((image) => Buffer.isBuffer(image.bytes) && image.bytes.length > 0)).to.equal(true);
    expect(JSON.stringify(input)).not.to.include('img.example');
  });

  it('failed fetches left nothing: one report per 201', async () => {
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: 4, units: 4, claims: 0 });
  });
});
