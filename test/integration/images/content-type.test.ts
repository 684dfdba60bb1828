import { GIF, HTML, JPEG, PNG, SVG, WEBP } from '../../support/images/fixtures.ts';
import type { ImageFetchReason } from '../../../src/images/index.ts';
import { expectFailure, secretsOf } from '../../support/images/expect-failure.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';

describe('content type: declared type one of four and leading bytes agree, else rejected (R22, R23)', () => {
  let server: ImageServer;
  before(async () => {
    server = await new ImageServer({
      '/svg': serve(SVG, 'image/svg+xml'),
      '/svg-as-png': serve(SVG, 'image/png'),
      '/html': serve(HTML, 'text/html'),
      '/html-as-jpeg': serve(HTML, 'image/jpeg'),
      '/png-as-jpeg': serve(PNG, 'image/jpeg'),
      '/jpeg-as-png': serve(JPEG, 'image/png'),
      '/gif-as-webp': serve(GIF, 'image/webp'),
      '/webp-as-gif': serve(WEBP, 'image/gif', { chunked: true }),
      '/no-type': (_req, res) => {
        res.writeHead(200, { 'Content-Length': PNG.length });
        res.end(PNG);
      },
      '/octet': serve(PNG, 'application/octet-stream'),
      '/jpg-alias': serve(JPEG, 'image/jpg'),
      '/bmp': serve(Buffer.from('BM'), 'image/bmp'),
      '/empty': serve(Buffer.alloc(0), 'image/png'),
      '/empty-chunked': serve(Buffer.alloc(0), 'image/png', { chunked: true }),
      '/short': serve(Buffer.from([0x89, 0x50]), 'image/png'),
      '/gzip': serve(PNG, 'image/png', { headers: { 'Content-Encoding': 'gzip' } }),
    }).listen();
  });
  after(() => server.close());

  const cases: [string, ImageFetchReason][] = [
    ['/svg', 'bad_content_type'],
    ['/svg-as-png', 'content_mismatch'],
    ['/html', 'bad_content_type'],
    ['/html-as-jpeg', 'content_mismatch'],
    ['/png-as-jpeg', 'content_mismatch'],
    ['/jpeg-as-png', 'content_mismatch'],
    ['/gif-as-webp', 'content_mismatch'],
    ['/webp-as-gif', 'content_mismatch'],
    ['/no-type', 'bad_content_type'],
    ['/octet', 'bad_content_type'],
    ['/jpg-alias', 'bad_content_type'],
    ['/bmp', 'bad_content_type'],
    ['/empty', 'empty_body'],
    ['/empty-chunked', 'empty_body'],
    ['/short', 'content_mismatch'],
    ['/gzip', 'bad_encoding'],
  ];
  for (const [path, reason] of cases) {
    it(`${path} is rejected (${reason}): unsupported or lying content type gives 422 (R23)`, async () => {
      const url = server.url(path);
      await expectFailure(localFetcher().fetch([url]), { kind: 'rejected', reason }, secretsOf(url));
    });
  }
});
