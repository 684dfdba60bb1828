// The 201 of a request with images is the public report of spec 2.2 and nothing else: neither
// the URLs nor what the boundary learned about the images (hash, size, type as fields, host,
// port) leaves the service (spec 2.2 "does not expose ... persistence metadata", R22).
// With Gemini the 201 carries no image metadata at all. The offline generator (R25) derives its
// description from image count, types and total size by design: there the MIME types may
// appear inside the generated description text, and nothing else does.
import { expect } from 'chai';
import { client } from '../support/http-client.ts';
import { createCustomerFixture } from '../support/database.ts';
import { useService } from '../support/use-service.ts';
import { geminiEnv } from '../support/e2e/gemini-service.ts';
import { IMAGES } from '../support/e2e/image-host.ts';
import { startImageRig, type ImageRig } from '../support/e2e/image-rig.ts';

const RESULT_FIELDS = ['category', 'confidence', 'description', 'priority', 'riskFlags', 'suggestedNextStep', 'tags', 'title'];

describe('the 201 of image evidence carries no URL and no image metadata (spec 2.2, R22)', function () {
  this.timeout(30_000);
  let rig: ImageRig;
  before(async () => {
    rig = await startImageRig();
  });
  const services = {
    offline: useService({ REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32' }),
    gemini: useService(() => ({ REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32', ...geminiEnv(rig.gemini) })),
  };
  after(() => rig?.close());

  for (const generator of ['gemini', 'offline'] as const) {
    for (const withText of [true, false]) {
      it(`${generator}, ${withText ? 'text and images' : 'images only'}: exactly id, status, result, usage; no URL, host, port, hash, size or type field`, async () => {
        const customer = await createCustomerFixture();
        const images = Object.values(IMAGES);
        const res = await client(services[generator].service.url, customer.apiKey).createReport<Record<string, unknown>>({
          context: 'inventory_check',
          evidence: { ...(withText ? { text: 'Shelf 4 is missing two boxes.' } : {}), images: images.map((i) => ({ url: rig.host.url(i.path) })) },
        });
        expect(res.status, res.text).to.equal(201);
        expect(Object.keys(res.body).sort()).to.deep.equal(['id', 'result', 'status', 'usage']);
        const result = res.body.result as Record<string, unknown>;
        expect(Object.keys(result).sort()).to.deep.equal(RESULT_FIELDS);
        expect(res.body.usage).to.deep.equal({ operation: 'evidence_report', units: 1 });

        // Outside the generated description, nothing at all about the images; inside it, no URL,
        // host, port or hash either. The id is a random UUID, whose hex digits can spell the port
        // or the byte count by chance: it is checked for its form and left out of the search.
        const id = String(res.body.id);
        expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
        const outsideDescription = JSON.stringify({ ...res.body, id: '', result: { ...result, description: '' } }).toLowerCase();
        const everywhere = res.text.replace(id, '').toLowerCase();
        const neverAnywhere = ['http', '127.0.0.1', `:${rig.host.port}`, String(rig.host.port), '/photos/', 'tiny.', 'sha256', 'sizebytes', 'mimetype'];
        for (const image of images) neverAnywhere.push(image.sha256, image.sha256.slice(0, 12));
        for (const word of neverAnywhere) expect(everywhere, `the 201 names ${word}`).not.to.include(word.toLowerCase());
        for (const word of ['image/', 'imageindex', String(IMAGES.jpeg.bytes.length)]) {
          expect(outsideDescription, `the 201 names ${word} outside the description`).not.to.include(word);
        }
        if (generator === 'gemini') expect(everywhere).not.to.include('image/');
        for (const [name, value] of Object.entries(res.headers)) {
          if (name === 'x-request-id' || name === 'date') continue;
          expect(String(value), `header ${name}`).not.to.match(/127\.0\.0\.1|photos|tiny\.|image\//);
        }
      });
    }
  }
});
