import { expect } from 'chai';
import { PNG } from '../../support/images/fixtures.ts';
import { expectFailure } from '../../support/images/expect-failure.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';
import type { Route } from '../../support/images/image-server.ts';
import { BudgetLease, ByteBudget } from '../../../src/images/index.ts';
import { waitFor } from '../../support/reports.ts';

/** Headers at once, the body after `ms`. */
const late = (ms: number, chunked: boolean): Route => (_req, res) => {
  const headers: Record<string, string | number> = { 'Content-Type': 'image/png' };
  if (!chunked) headers['Content-Length'] = PNG.length;
  res.writeHead(200, headers);
  res.flushHeaders();
  const timer = setTimeout(() => res.end(PNG), ms);
  res.on('close', () => clearTimeout(timer));
};

/** Headers (a declared length, or none), 16 bytes of a PNG, then nothing until the client gives up. */
const trickle = (declared: number | undefined): Route => (_req, res) => {
  const headers: Record<string, string | number> = { 'Content-Type': 'image/png' };
  if (declared !== undefined) headers['Content-Length'] = declared;
  res.writeHead(200, headers);
  res.write(PNG.subarray(0, 16));
};

describe('budget: a process-wide cap on image bytes in flight; over it, unavailable', () => {
  let server: ImageServer;
  before(async () => {
    server = await new ImageServer({
      '/x.png': serve(PNG, 'image/png'),
      '/late.png': late(300, true),
      '/late-declared.png': late(300, false),
      '/404': (_req, res) => res.writeHead(404).end(),
      '/trickle.png': trickle(undefined),
      '/trickle-declared.png': trickle(1024 * 1024),
    }).listen();
  });
  after(() => server.close());

  it('reserves the bytes as they arrive: a body larger than the room left is unavailable (budget)', async () => {
    const budget = new ByteBudget(PNG.length - 1);
    await expectFailure(localFetcher({ maxBytes: 4096, budget }).fetch([server.url('/late.png')]), { kind: 'unavailable', reason: 'budget' });
    expect(budget.used).to.equal(0);
    // The same body fits a budget of its own size, with or without a declared length.
    const fits = new ByteBudget(PNG.length);
    const [image] = await localFetcher({ maxBytes: 4096, budget: fits }).fetch([server.url('/late.png')]);
    expect(image?.sizeBytes).to.equal(PNG.length);
  });

  it('a host that declares a large length, or none, and then trickles holds only what it sent, not the whole image allowance (R39)', async () => {
    // Before its body arrives, a fetch holds nothing of the budget: a customer naming hosts that
    // stall cannot take the budget from everyone else's images for the length of the deadline.
    const budget = new ByteBudget(1024 * 1024);
    const fetcher = localFetcher({ maxBytes: 1024 * 1024, budget, timeoutMs: 600 });
    const stalled = Promise.allSettled([fetcher.fetch([server.url('/trickle-declared.png')]), fetcher.fetch([server.url('/trickle.png')])]);
    await waitFor(() => budget.used === 32, 2_000);
    const [image] = await localFetcher({ maxBytes: 1024 * 1024, budget }).fetch([server.url('/x.png')]);
    expect(image?.sizeBytes, 'another fetch still finds room').to.equal(PNG.length);
    await stalled;
    expect(budget.used).to.equal(0);
  });

  it('reserves the declared length when there is one', async () => {
    const budget = new ByteBudget(PNG.length);
    const [image] = await localFetcher({ maxBytes: 4096, budget }).fetch([server.url('/x.png')]);
    expect(image?.sizeBytes).to.equal(PNG.length);
    expect(budget.used).to.equal(0);
  });

  it('makes concurrent fetches beyond the budget unavailable, across fetchers sharing it: a fetch in flight holds the bytes it has', async () => {
    // A host that sent 16 bytes and stalls holds 16 bytes of the budget; a whole PNG no longer fits.
    const budget = new ByteBudget(PNG.length + 15);
    const stalled = localFetcher({ maxBytes: 4096, budget, timeoutMs: 600 }).fetch([server.url('/trickle.png')]);
    await waitFor(() => budget.used === 16, 2_000);
    await expectFailure(localFetcher({ maxBytes: 4096, budget }).fetch([server.url('/x.png')]), { kind: 'unavailable', reason: 'budget' });
    await expectFailure(stalled, { kind: 'unavailable', reason: 'timeout' });
    expect(budget.used).to.equal(0);
  });

  it('within one call, the images beyond the budget make the call unavailable at their index', async () => {
    const budget = new ByteBudget(PNG.length * 2);
    const fetcher = localFetcher({ maxBytes: 4096, budget, concurrency: 3 });
    const urls = ['/late-declared.png', '/late-declared.png', '/late-declared.png'].map((p) => server.url(p));
    const error = await expectFailure(fetcher.fetch(urls), { kind: 'unavailable', reason: 'budget', index: 2 });
    expect(error.imageIndex).to.equal(2);
    expect(budget.used).to.equal(0);
  });

  it('is fully released after success and after every kind of failure', async () => {
    const budget = new ByteBudget(1024 * 1024);
    const fetcher = localFetcher({ maxBytes: 4096, budget, timeoutMs: 150 });
    await fetcher.fetch([server.url('/x.png'), server.url('/x.png')]);
    expect(budget.used, 'after success').to.equal(0);
    await expectFailure(fetcher.fetch([server.url('/late.png')]), { kind: 'unavailable', reason: 'timeout' });
    expect(budget.used, 'after timeout').to.equal(0);
    await expectFailure(fetcher.fetch([server.url('/x.png'), server.url('/404')]), { kind: 'rejected', reason: 'http_status', index: 1 });
    expect(budget.used, 'after a rejected sibling').to.equal(0);
    const small = localFetcher({ maxBytes: 16, budget });
    await expectFailure(small.fetch([server.url('/late.png')]), { kind: 'rejected', reason: 'too_large' });
    expect(budget.used, 'after too large').to.equal(0);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    await expectFailure(localFetcher({ budget }).fetch([server.url('/late.png')], controller.signal), { kind: 'unavailable', reason: 'aborted' });
    expect(budget.used, 'after abort').to.equal(0);
  });

  it("counts the bytes on the caller's lease, where they stay after the call until the caller releases them (R39)", async () => {
    const budget = new ByteBudget(PNG.length * 3);
    const fetcher = localFetcher({ maxBytes: 4096, budget });
    const lease = new BudgetLease(budget);
    const images = await fetcher.fetch([server.url('/x.png'), server.url('/x.png')], undefined, { lease });
    expect(images).to.have.length(2);
    expect(lease.held, 'on the lease').to.equal(PNG.length * 2);
    expect(budget.used, 'while the caller holds the bytes').to.equal(PNG.length * 2);
    // Another caller finds room for one image only: memory is protected while bytes are held.
    await expectFailure(localFetcher({ maxBytes: 4096, budget }).fetch([server.url('/x.png'), server.url('/x.png')]), {
      kind: 'unavailable',
      reason: 'budget',
      index: 1,
    });
    lease.releaseAll();
    expect(budget.used, 'after the caller let go').to.equal(0);
  });

  it("hands each image to the caller's process step as soon as it is complete, and its result takes the image's place", async () => {
    const budget = new ByteBudget(1024 * 1024);
    const lease = new BudgetLease(budget);
    const at: number[] = [];
    const results = await localFetcher({ budget }).fetch([server.url('/x.png'), server.url('/late-declared.png')], undefined, {
      lease,
      process: async (image) => {
        at[image.index] = performance.now();
        expect(lease.held, 'the original is on the lease').to.be.at.least(image.sizeBytes);
        // The step trades the original for something smaller, as the normalizer does (R39).
        expect(lease.exchange(image.sizeBytes, 1)).to.equal(true);
        return `image ${image.index}: ${image.sizeBytes} bytes`;
      },
    });
    expect(results).to.deep.equal([`image 0: ${PNG.length} bytes`, `image 1: ${PNG.length} bytes`]);
    // /late-declared.png sends its body 300 ms after its headers: the first image did not wait for it.
    expect(at[1]! - at[0]!, 'the first image is processed while the second still downloads').to.be.greaterThan(150);
    expect(lease.held).to.equal(2);
    lease.releaseAll();
  });

  it("leaves a failed call's reservations on the caller's lease, for the caller's one release", async () => {
    const budget = new ByteBudget(1024 * 1024);
    const lease = new BudgetLease(budget);
    // One at a time, so image 0 is whole on the lease before image 1 fails.
    const fetcher = localFetcher({ maxBytes: 4096, budget, concurrency: 1 });
    await expectFailure(fetcher.fetch([server.url('/x.png'), server.url('/404')], undefined, { lease }), {
      kind: 'rejected',
      reason: 'http_status',
      index: 1,
    });
    expect(lease.held, 'image 0 stays on the lease').to.equal(PNG.length);
    expect(budget.used).to.equal(lease.held);
    lease.releaseAll();
    expect(budget.used).to.equal(0);
  });
});
