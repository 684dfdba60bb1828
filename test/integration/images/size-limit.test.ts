import { expect } from 'chai';
import { PNG } from '../../support/images/fixtures.ts';
import { expectFailure, secretsOf } from '../../support/images/expect-failure.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';
import type { Route } from '../../support/images/image-server.ts';

const MAX = 4096;
const big = Buffer.concat([PNG, Buffer.alloc(MAX * 4)]);
const exact = Buffer.concat([PNG, Buffer.alloc(MAX - PNG.length)]);

/** Streams PNG bytes forever (chunked), counting what it managed to write. */
function endless(counter: { written: number }, declared?: number): Route {
  return (_req, res) => {
    const headers: Record<string, string | number> = { 'Content-Type': 'image/png' };
    if (declared !== undefined) headers['Content-Length'] = declared;
    res.writeHead(200, headers);
    res.write(PNG);
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      counter.written += 1024;
      res.write(Buffer.alloc(1024));
    }, 2);
    res.on('close', () => clearInterval(timer));
  };
}

describe('size: a body above IMAGE_MAX_BYTES is rejected and never buffered (R22, R23 oversize)', () => {
  let server: ImageServer;
  const stream = { written: 0 };
  before(async () => {
    server = await new ImageServer({
      '/declared': serve(big, 'image/png'),
      '/chunked': serve(big, 'image/png', { chunked: true }),
      '/exact': serve(exact, 'image/png'),
      '/endless': endless(stream),
      '/declared-huge': (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(10 * 1024 ** 3) });
        res.write(PNG);
      },
    }).listen();
  });
  after(() => server.close());

  it('refuses a declared Content-Length above the limit before reading the body', async () => {
    const url = server.url('/declared-huge');
    const started = Date.now();
    await expectFailure(localFetcher({ maxBytes: MAX }).fetch([url]), { kind: 'rejected', reason: 'too_large' }, secretsOf(url));
    expect(Date.now() - started).to.be.below(1000);
  });

  it('refuses an oversized body with Content-Length', async () => {
    const url = server.url('/declared');
    await expectFailure(localFetcher({ maxBytes: MAX }).fetch([url]), { kind: 'rejected', reason: 'too_large' }, secretsOf(url));
  });

  it('refuses an oversized chunked body (no Content-Length)', async () => {
    const url = server.url('/chunked');
    await expectFailure(localFetcher({ maxBytes: MAX }).fetch([url]), { kind: 'rejected', reason: 'too_large' }, secretsOf(url));
  });

  it('stops an endless body at the limit and closes the connection, well before the timeout', async () => {
    const url = server.url('/endless');
    const started = Date.now();
    await expectFailure(localFetcher({ maxBytes: MAX, timeoutMs: 5000 }).fetch([url]), { kind: 'rejected', reason: 'too_large' }, secretsOf(url));
    expect(Date.now() - started).to.be.below(2000);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.sockets.size, 'server socket closed').to.equal(0);
  });

  it('accepts a body of exactly the limit', async () => {
    const [image] = await localFetcher({ maxBytes: MAX }).fetch([server.url('/exact')]);
    expect(image?.sizeBytes).to.equal(MAX);
  });
});
