import { expect } from 'chai';
import { PNG } from '../../support/images/fixtures.ts';
import { expectFailure, secretsOf } from '../../support/images/expect-failure.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { ImageServer, redirect } from '../../support/images/image-server.ts';
import type { Route } from '../../support/images/image-server.ts';

const TIMEOUT = 1000;
// A bound, not a speed goal: the deadline plus scheduling slack.
const BOUND = TIMEOUT + 700;

/** Sends headers, then one byte of a PNG every 200 ms. */
const drip: Route = (_req, res) => {
  res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': PNG.length });
  let i = 0;
  const timer = setInterval(() => {
    if (res.destroyed || i >= PNG.length) return clearInterval(timer);
    res.write(PNG.subarray(i, ++i));
  }, 200);
  res.on('close', () => clearInterval(timer));
};

describe('time: one deadline per image, DNS and connect to last byte (R22 5 s default, R23 timeout is 503)', () => {
  let server: ImageServer;
  before(async () => {
    server = await new ImageServer({
      '/drip': drip,
      '/stall': () => {
        // Accepts the request and never answers.
      },
      '/slow-redirect': (_req, res) => setTimeout(() => redirect('/drip')(_req, res, server), 400),
    }).listen();
  });
  after(() => server.close());

  async function timed(url: string, options = {}): Promise<number> {
    const started = Date.now();
    await expectFailure(localFetcher({ timeoutMs: TIMEOUT, ...options }).fetch([url]), { kind: 'unavailable', reason: 'timeout' }, secretsOf(url));
    return Date.now() - started;
  }

  it('ends a slow drip (one byte per 200 ms) as unavailable within the bound', async () => {
    const elapsed = await timed(server.url('/drip'));
    expect(elapsed).to.be.within(TIMEOUT - 50, BOUND);
    await new Promise((r) => setTimeout(r, 50));
    expect(server.sockets.size, 'socket destroyed').to.equal(0);
  });

  it('ends a server that accepts and never sends headers within the bound', async () => {
    expect(await timed(server.url('/stall'))).to.be.within(TIMEOUT - 50, BOUND);
  });

  it('counts redirects and the final body against the same deadline', async () => {
    expect(await timed(server.url('/slow-redirect'))).to.be.within(TIMEOUT - 50, BOUND);
  });

  it('bounds a resolver that never answers', async () => {
    const started = Date.now();
    const fetcher = localFetcher({ timeoutMs: TIMEOUT, resolver: () => new Promise(() => {}) });
    await expectFailure(fetcher.fetch(['http://img.test/x.png']), { kind: 'unavailable', reason: 'timeout' }, ['img.test']);
    expect(Date.now() - started).to.be.within(TIMEOUT - 50, BOUND);
  });

  it("honours the caller's AbortSignal (unavailable, reason aborted)", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const started = Date.now();
    const url = server.url('/stall');
    await expectFailure(localFetcher({ timeoutMs: 5000 }).fetch([url], controller.signal), { kind: 'unavailable', reason: 'aborted' }, secretsOf(url));
    expect(Date.now() - started).to.be.below(1000);
  });

  it('refuses to start when the caller signal is already aborted', async () => {
    const before = server.connections;
    await expectFailure(localFetcher().fetch([server.url('/drip')], AbortSignal.abort()), { kind: 'unavailable', reason: 'aborted' });
    expect(server.connections).to.equal(before);
  });
});
