// Image evidence end to end: the whole service, with the
// production HttpImageFetcher and normalizer and the generator chosen from the environment
// (offline here), fetches real PNG, JPEG, GIF and WebP bytes from a local host (allowed by
// REMOTE_IMAGE_ALLOW_CIDRS) and stores what it fetched: type, size, pixel size and SHA-256 of
// exactly the bytes served, and the facts of their normalized form (R22, R38).
import { expect } from 'chai';
import { client } from '../support/http-client.ts';
import { countCustomerRows, createCustomerFixture } from '../support/database.ts';
import { useService } from '../support/use-service.ts';
import type { ImageServer } from '../support/images/image-server.ts';
import { IMAGES, startImageHost } from '../support/e2e/image-host.ts';
import { storedReport } from '../support/e2e/stored-reports.ts';
import type { ServedImage } from '../support/e2e/image-host.ts';
import type { StoredImage } from '../support/e2e/stored-reports.ts';

const ALL = [IMAGES.png, IMAGES.jpeg, IMAGES.gif, IMAGES.webp];

/** The fixtures are 2 x 2 pixels without transparency: each is normalized to a 2 x 2 JPEG (R38). */
function expectStored(stored: StoredImage, index: number, served: ServedImage): void {
  // The normalized size depends on the encoder: checked on its own, the rest exactly.
  const { sizeBytes, ...normalized } = stored.normalized;
  expect({ ...stored, normalized }).to.deep.equal({
    index,
    original: { sha256: served.sha256, sizeBytes: served.bytes.length, mimeType: served.mimeType, width: 2, height: 2 },
    normalized: { mimeType: 'image/jpeg', width: 2, height: 2 },
  });
  expect(sizeBytes).to.be.greaterThan(100);
}

describe('image evidence end to end: fetched through the boundary and stored as metadata (R22)', function () {
  this.timeout(30_000);
  let host: ImageServer;

  before(async () => {
    host = await startImageHost();
  });
  const app = useService({ REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32' });
  before(() => {
    expect(app.service.config.reportGenerator).to.equal('offline');
  });
  after(async () => {
    await host?.close();
  });

  it('text with the four formats gives 201, and the stored metadata matches the bytes served and their normalized form (R22, R38)', async () => {
    const customer = await createCustomerFixture();
    const before = host.requests.length;
    const res = await client(app.service.url, customer.apiKey).createReport<{ id: string; status: string }>({
      context: 'property_maintenance',
      evidence: { text: 'Water stain spreading on the ceiling of flat 3B.', images: ALL.map((i) => ({ url: host.url(i.path) })) },
    });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.status).to.equal('completed');
    expect(host.requests.slice(before).map((r) => r.path).sort()).to.deep.equal(ALL.map((i) => i.path).sort());

    const stored = await storedReport(customer.customerId, res.body.id);
    expect(stored.images).to.have.length(ALL.length);
    ALL.forEach((served, index) => expectStored(stored.images[index]!, index, served));
    const counts = await countCustomerRows(customer.customerId);
    expect(counts.evidence_report).to.equal(1);
    expect(counts.usage_record).to.equal(1);
    // The offline generator reads the normalized images' metadata (R25, R38): four JPEGs of their normalized size.
    const normalizedBytes = stored.images.reduce((sum, image) => sum + image.normalized.sizeBytes, 0);
    const description = (stored.result as { description: string }).description;
    expect(description).to.include(`4 images attached (image/jpeg; ${(normalizedBytes / 1024).toFixed(1)} KiB)`);
  });

  for (const served of ALL) {
    it(`images only (${served.mimeType}) gives 201 with the image's metadata stored (R28, R22)`, async () => {
      const customer = await createCustomerFixture();
      const res = await client(app.service.url, customer.apiKey).createReport<{ id: string }>({
        context: 'damage_report',
        evidence: { images: [{ url: host.url(served.path) }] },
      });
      expect(res.status, res.text).to.equal(201);
      const stored = await storedReport(customer.customerId, res.body.id);
      expect(stored.images).to.have.length(1);
      expectStored(stored.images[0]!, 0, served);
      expect((await countCustomerRows(customer.customerId)).usage_record).to.equal(1);
    });
  }

  it('a redirect within the allowed host is followed and the final bytes are the ones stored (R22)', async () => {
    const customer = await createCustomerFixture();
    const res = await client(app.service.url, customer.apiKey).createReport<{ id: string }>({
      context: 'field_inspection',
      evidence: { text: 'Photo of the meter cabinet.', images: [{ url: host.url('/to-tiny.png') }] },
    });
    expect(res.status, res.text).to.equal(201);
    const stored = await storedReport(customer.customerId, res.body.id);
    expect(stored.images).to.have.length(1);
    expectStored(stored.images[0]!, 0, IMAGES.png);
  });
});
