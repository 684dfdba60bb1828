import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { GIF, GIF87, JPEG, PNG, WEBP } from '../../support/images/fixtures.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';

describe('accepted images: the four types with matching bytes come back as bytes (R22, spec 4.1 rule 2)', () => {
  let server: ImageServer;
  before(async () => {
    server = await new ImageServer({
      '/a.png': serve(PNG, 'image/png'),
      '/a.jpg': serve(JPEG, 'image/jpeg'),
      '/a.gif': serve(GIF, 'image/gif'),
      '/a87.gif': serve(GIF87, 'image/gif'),
      '/a.webp': serve(WEBP, 'image/webp', { chunked: true }),
      '/params.png': serve(PNG, 'IMAGE/PNG; charset=binary'),
    }).listen();
  });
  after(() => server.close());

  it('returns PNG, JPEG, GIF (87a and 89a) and WebP in request order with size and sha256', async () => {
    const urls = ['/a.png', '/a.jpg', '/a.gif', '/a87.gif', '/a.webp'].map((p) => server.url(p));
    const images = await localFetcher().fetch(urls);
    const expected = [
      [PNG, 'image/png'],
      [JPEG, 'image/jpeg'],
      [GIF, 'image/gif'],
      [GIF87, 'image/gif'],
      [WEBP, 'image/webp'],
    ] as const;
    expect(images.map((i) => i.index)).to.deep.equal([0, 1, 2, 3, 4]);
    images.forEach((image, i) => {
      const [bytes, type] = expected[i]!;
      expect(image.mimeType).to.equal(type);
      expect(image.bytes.equals(bytes)).to.equal(true);
      expect(image.sizeBytes).to.equal(bytes.length);
      expect(image.sha256).to.equal(createHash('sha256').update(bytes).digest('hex'));
    });
  });

  it('ignores media type parameters and case in Content-Type', async () => {
    const [image] = await localFetcher().fetch([server.url('/params.png')]);
    expect(image?.mimeType).to.equal('image/png');
  });

  it('sends Accept for the four types, a User-Agent, Accept-Encoding identity, and no cookie or credentials', async () => {
    await localFetcher().fetch([server.url('/a.png?x=1')]);
    const seen = server.requests.at(-1)!;
    expect(seen.path).to.equal('/a.png?x=1');
    expect(seen.headers.accept).to.equal('image/jpeg, image/png, image/gif, image/webp');
    expect(seen.headers['accept-encoding']).to.equal('identity');
    expect(seen.headers['user-agent']).to.match(/evidence-report-service/);
    expect(seen.headers.host).to.equal(`127.0.0.1:${server.port}`);
    expect(seen.headers).not.to.have.any.keys('cookie', 'authorization', 'proxy-authorization');
  });

  it('returns an empty list for no URLs, without any connection', async () => {
    const before = server.connections;
    expect(await localFetcher().fetch([])).to.deep.equal([]);
    expect(server.connections).to.equal(before);
  });
});
