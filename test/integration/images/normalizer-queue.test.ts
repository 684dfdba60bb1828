// R38: decoding runs off the event loop, through a bounded queue of work. Past the
// queue's bounds (jobs waiting, time waited) a job is refused at once with 503
// `normalizer_busy`: never an unbounded wait, never a hang.
import { expect } from 'chai';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ByteBudget, FakeImageFetcher, ImageBoundary, ImageFetchError, ImageRefusal, SharpImageNormalizer, WorkQueue } from '../../../src/images/index.ts';
import type { ImageFetcher } from '../../../src/images/image-fetcher.ts';
import { composeImageBoundary } from '../../../src/images/compose-image-boundary.ts';
import { loadConfig } from '../../../src/config.ts';
import { phonePhoto } from '../../support/images/made-images.ts';

/** A job that runs until `open()` is called. */
function gated(log: string[], name: string): { job: () => Promise<string>; open: () => void } {
  const gate = Promise.withResolvers<void>();
  return {
    job: async () => {
      log.push(`start ${name}`);
      await gate.promise;
      return name;
    },
    open: () => gate.resolve(),
  };
}

const reasonOf = (promise: Promise<unknown>): Promise<string> =>
  promise.then(
    () => 'resolved',
    (e: unknown) => (e instanceof ImageRefusal || e instanceof ImageFetchError ? `${e.kind}:${e.reason}` : String(e)),
  );

describe('normalization queue: bounded, refused at once past its bounds, off the event loop (R38)', function () {
  this.timeout(30_000);

  it('runs `concurrency` jobs at once, queues `maxWaiting` in order, and refuses the next one at once', async () => {
    const queue = new WorkQueue({ concurrency: 2, maxWaiting: 2, maxWaitMs: 10_000 });
    const log: string[] = [];
    const jobs = ['a', 'b', 'c', 'd'].map((name) => gated(log, name));
    const runs = jobs.map((j) => queue.run(j.job));
    await new Promise((r) => setImmediate(r));
    expect(log).to.deep.equal(['start a', 'start b']);
    expect([queue.running, queue.waiting]).to.deep.equal([2, 2]);

    const started = performance.now();
    expect(await reasonOf(queue.run(async () => 'e'))).to.equal('unavailable:normalizer_busy');
    // Waiting would mean until a job is opened, which this test does only afterwards.
    expect(performance.now() - started, 'refused without waiting').to.be.below(1_000);

    jobs[1]!.open();
    expect(await runs[1]).to.equal('b');
    await new Promise((r) => setImmediate(r));
    expect(log).to.deep.equal(['start a', 'start b', 'start c']);
    for (const j of jobs) j.open();
    expect(await Promise.all(runs)).to.deep.equal(['a', 'b', 'c', 'd']);
    expect([queue.running, queue.waiting]).to.deep.equal([0, 0]);
  });

  it('refuses a job that waited longer than maxWaitMs, and lets a waiting job leave when its request aborts', async () => {
    const queue = new WorkQueue({ concurrency: 1, maxWaiting: 4, maxWaitMs: 100 });
    const log: string[] = [];
    const busy = gated(log, 'busy');
    const running = queue.run(busy.job);
    expect(await reasonOf(queue.run(async () => 'late'))).to.equal('unavailable:normalizer_busy');

    const controller = new AbortController();
    const waiting = reasonOf(queue.run(async () => 'never', controller.signal));
    expect(queue.waiting).to.equal(1);
    controller.abort();
    expect(await waiting).to.equal('unavailable:aborted');
    expect(queue.waiting).to.equal(0);
    busy.open();
    await running;
    expect(await queue.run(async () => 'free again')).to.equal('free again');
  });

  it("admits a request's jobs in one decision: its places are kept for it, others are refused, unused places come back", async () => {
    const queue = new WorkQueue({ concurrency: 1, maxWaiting: 3, maxWaitMs: 10_000 });
    const admission = queue.admit(3);
    expect(admission, 'three of four places').not.to.equal(undefined);
    expect(queue.admit(2), 'two more do not fit').to.equal(undefined);
    expect(await reasonOf(queue.run(async () => 'stranger', undefined, undefined)), 'a job of its own takes the last place').to.equal('resolved');
    const log: string[] = [];
    const first = gated(log, 'first');
    const running = queue.run(first.job, undefined, admission);
    const other = gated(log, 'other');
    const otherRun = queue.run(other.job);
    expect(await reasonOf(queue.run(async () => 'one too many')), 'the queue is full').to.equal('unavailable:normalizer_busy');
    expect(queue.admitted).to.equal(4);
    admission![Symbol.dispose]();
    expect(queue.admitted, 'the two unused places came back').to.equal(2);
    first.open();
    other.open();
    await Promise.all([running, otherRun]);
    expect(queue.admitted).to.equal(0);
  });

  it('refuses a request whose last job would likely wait past maxWaitMs, from the recent run time of a job', async () => {
    const queue = new WorkQueue({ concurrency: 1, maxWaiting: 10, maxWaitMs: 1_000 });
    expect(queue.meanRunMs, 'nothing known yet').to.equal(undefined);
    await queue.run(() => new Promise((resolve) => setTimeout(resolve, 300)));
    expect(queue.meanRunMs).to.be.within(280, 900);
    // Each job runs about 300 ms (or more on a busy machine): with 1 running, the 5th of five
    // would wait 4 x that, the 3rd of three 2 x that.
    expect(queue.admit(5), 'five would wait too long').to.equal(undefined);
    const admission = queue.admit(2);
    expect(admission, 'two fit').not.to.equal(undefined);
    admission![Symbol.dispose]();
  });

  it('a request of IMAGE_MAX_COUNT images can always be admitted: the queue has at least that many places, whatever the cores', async () => {
    // 64 is the variable's maximum; the default places are 17 per running job (1 to 3 jobs).
    const config = loadConfig({ IMAGE_MAX_COUNT: '64' });
    const urls = Array.from({ length: 64 }, (_, i) => `https://img.example/${i}.png`);
    const boundary = composeImageBoundary(config, { budget: new ByteBudget(config.imageBytesInFlightMax), generator: {}, fetcher: new FakeImageFetcher() });
    using images = await boundary.acquire(urls);
    expect(images.accepted).to.have.lengthOf(64);
  });

  it("one customer's images hold at most half the places, however slow their downloads: another customer is still admitted", async () => {
    // Places are promised before the downloads, so slow image hosts hold them (R38). 2 running
    // jobs and 32 waiting: 34 places, 17 for one customer at most.
    const queueOf = new SharpImageNormalizer({ maxDimension: 256, maxPixels: 40_000_000, concurrency: 2, maxWaiting: 32, imagesPerRequest: 8 });
    const gate = Promise.withResolvers<void>();
    const inner = new FakeImageFetcher();
    // The network stands still until the gate opens: every image of every request is "downloading".
    const slowNetwork: ImageFetcher = {
      fetch: async (urls, signal, options) => {
        await gate.promise;
        return inner.fetch(urls, signal, options);
      },
    };
    const boundary = new ImageBoundary({ fetcher: slowNetwork, normalizer: queueOf, budget: new ByteBudget(64 * 1024 * 1024) });
    const eight = (who: string, n: number) => Array.from({ length: 8 }, (_, i) => `https://img.example/${who}/${n}/${i}.png`);
    const first = [boundary.acquire(eight('a', 1), undefined, 'customer-a'), boundary.acquire(eight('a', 2), undefined, 'customer-a')];
    await new Promise((r) => setImmediate(r));
    expect(queueOf.load.admitted, 'two requests of eight, downloading').to.equal(16);
    expect(await reasonOf(boundary.acquire(eight('a', 3), undefined, 'customer-a')), 'a third would hold 24 of 34').to.equal('unavailable:normalizer_busy');
    const other = boundary.acquire(eight('b', 1), undefined, 'customer-b');
    gate.resolve();
    for (const set of await Promise.all([...first, other])) set[Symbol.dispose]();
    expect(queueOf.load.admitted).to.equal(0);
    // Its places back, the customer is admitted again.
    (await boundary.acquire(eight('a', 4), undefined, 'customer-a'))[Symbol.dispose]();
  });

  it('the queue counts each owner\'s places: promised, taken by a job, given back when the job ends or the request is done', async () => {
    const queue = new WorkQueue({ concurrency: 1, maxWaiting: 9, maxWaitMs: 10_000, maxPerOwner: 5 });
    const a = queue.admit(3, 'a');
    expect(a).not.to.equal(undefined);
    expect(queue.admit(3, 'a'), 'over its five').to.equal(undefined);
    expect(queue.admit(3, 'b')).not.to.equal(undefined);
    const job = gated([], 'x');
    const running = queue.run(job.job, undefined, a);
    a![Symbol.dispose]();
    expect(queue.heldBy('a'), 'one place is with the running job').to.equal(1);
    job.open();
    await running;
    expect(queue.heldBy('a')).to.equal(0);
    expect(queue.admit(5, 'a')).not.to.equal(undefined);
  });

  it('a failing job gives its turn back', async () => {
    const queue = new WorkQueue({ concurrency: 1, maxWaiting: 0, maxWaitMs: 100 });
    expect(await reasonOf(queue.run(async () => Promise.reject(new Error('boom'))))).to.equal('Error: boom');
    expect(await queue.run(async () => 'next')).to.equal('next');
  });

  it('the normalizer refuses past its queue at once (503 normalizer_busy) while the admitted images complete', async () => {
    const normalizer = new SharpImageNormalizer({ maxDimension: 512, maxPixels: 40_000_000, concurrency: 1, maxWaiting: 1 });
    const photo = await phonePhoto({ width: 1600, height: 1200 });
    const outcomes = await Promise.all([1, 2, 3].map(() => reasonOf(normalizer.normalize(photo, 'image/jpeg'))));
    expect(outcomes).to.deep.equal(['resolved', 'resolved', 'unavailable:normalizer_busy']);
    expect(normalizer.load).to.deep.equal({ running: 0, waiting: 0, admitted: 0 });
  });

  it('decoding runs off the event loop: timers keep firing while four photos are normalized', async () => {
    const normalizer = new SharpImageNormalizer({ maxDimension: 2048, maxPixels: 40_000_000 });
    const photos = await Promise.all([1, 2, 3, 4].map(() => phonePhoto({ width: 3000, height: 2000, orientation: 6 })));
    await normalizer.normalize(photos[0]!, 'image/jpeg'); // the first call loads libvips' decoders
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const started = performance.now();
    await Promise.all(photos.map((photo) => normalizer.normalize(photo, 'image/jpeg')));
    const elapsedMs = performance.now() - started;
    delay.disable();
    const worstMs = delay.max / 1e6;
    // On the event loop, one photo alone would block it for its whole decode (about 100 ms here)
    // and the four for all of elapsedMs; off it, the loop only waits for its own small turns.
    expect(worstMs, `worst event-loop delay over ${Math.round(elapsedMs)} ms of work`).to.be.below(elapsedMs / 3);
  });
});
