import { expect } from 'chai';
import { PNG } from '../../support/images/fixtures.ts';
import { expectFailure } from '../../support/images/expect-failure.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { ImageServer } from '../../support/images/image-server.ts';

describe('parallelism: images of one call fetched with a small bound; the first failure cancels the rest', () => {
  let server: ImageServer;
  before(async () => {
    server = await new ImageServer({
      '/slow.png': (_req, res) => {
        const timer = setTimeout(() => {
          res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PNG.length });
          res.end(PNG);
        }, 100);
        res.on('close', () => clearTimeout(timer));
      },
      '/stall': () => {},
      '/404': (_req, res) => setTimeout(() => res.writeHead(404).end(), 50),
      '/bad-type': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>'),
    }).listen();
  });
  after(() => server.close());

  it('never runs more than `concurrency` fetches at once, and returns every image in order', async () => {
    server.maxActive = 0;
    const urls = Array.from({ length: 7 }, () => server.url('/slow.png'));
    const images = await localFetcher({ concurrency: 2 }).fetch(urls);
    expect(images.map((i) => i.index)).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
    expect(server.maxActive).to.equal(2);
  });

  it('runs up to the bound in parallel (default 4)', async () => {
    server.maxActive = 0;
    await localFetcher({ concurrency: undefined }).fetch(Array.from({ length: 6 }, () => server.url('/slow.png')));
    expect(server.maxActive).to.equal(4);
  });

  it('reports the failing image by its index and aborts the stalled others at once', async () => {
    const urls = [server.url('/stall'), server.url('/404'), server.url('/stall')];
    const started = Date.now();
    await expectFailure(localFetcher({ timeoutMs: 5000 }).fetch(urls), { kind: 'rejected', reason: 'http_status', index: 1 });
    expect(Date.now() - started).to.be.below(1000);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.sockets.size, 'stalled sockets closed').to.equal(0);
  });

  it('reports the lowest index when URLs fail the static checks, before any connection', async () => {
    const before = server.connections;
    const urls = [server.url('/slow.png'), 'ftp://example.com/x.png', 'http://10.0.0.1/x.png'];
    await expectFailure(localFetcher().fetch(urls), { kind: 'rejected', reason: 'bad_scheme', index: 1 }, ['example.com', '10.0.0.1']);
    expect(server.connections).to.equal(before);
  });

  it('does not start images queued after the first failure', async () => {
    const before = server.connections;
    const urls = [server.url('/bad-type'), ...Array.from({ length: 5 }, () => server.url('/slow.png'))];
    await expectFailure(localFetcher({ concurrency: 1 }).fetch(urls), { kind: 'rejected', reason: 'bad_content_type', index: 0 });
    expect(server.connections - before).to.equal(1);
  });
});
