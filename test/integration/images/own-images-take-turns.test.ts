// R39 with R23: a request's own images take turns for the byte budget instead of refusing each
// other. Each image below is accepted alone; together, a frame that needs nearly the whole
// budget (a progressive JPEG: frame and DCT coefficients) and the other image's original do not
// fit at once. Without turns that request is 503 `budget` on every retry on an idle instance:
// the large frame found the other's original in the way, or the other's download found the
// frame in the way. With them, the frame waits for the other image to be normalized, and the
// download waits for the frame to be given back. Real HTTP (a local image host), real decoding.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import sharp from 'sharp';
import type { Route } from '../../support/images/image-server.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { BudgetLease, ByteBudget, ImageBoundary, SharpImageNormalizer } from '../../../src/images/index.ts';

/** 2048 x 2048, progressive 4:2:0: 3 bytes a pixel of frame and 3 of coefficients once decoding. */
const BIG = { width: 2048, height: 2048 };
const BIG_DECODED = BIG.width * BIG.height * 6;
/** Room beyond the big image's frame and original: more than the small image's normalized copy, less than its original. */
const MARGIN = 200 * 1024;

/** A PNG of random pixels: its original (about 480 KB) does not shrink by compression. */
function noisePng(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** Headers and `first` bytes after `afterMs`, the rest `restAfterMs` later, in pieces of `piece` bytes every 10 ms. */
function paced(body: Buffer, type: string, { afterMs, first, restAfterMs, piece }: { afterMs: number; first: number; restAfterMs: number; piece: number }): Route {
  return (_req, res) => {
    const timers: NodeJS.Timeout[] = [];
    res.on('close', () => timers.forEach((t) => clearTimeout(t)));
    timers.push(
      setTimeout(() => {
        res.writeHead(200, { 'Content-Type': type, 'Content-Length': body.length });
        res.write(body.subarray(0, first));
        let at = first;
        const next = (): void => {
          if (at >= body.length) return void res.end();
          res.write(body.subarray(at, at + piece));
          at += piece;
          timers.push(setTimeout(next, 10));
        };
        timers.push(setTimeout(next, restAfterMs));
      }, afterMs),
    );
  };
}

describe("a request's own images take turns for the byte budget (R39, R23)", function () {
  this.timeout(30_000);
  let big: Buffer;
  let small: Buffer;
  let server: ImageServer;
  const normalizer = new SharpImageNormalizer({ maxDimension: 256, maxPixels: 40_000_000 });

  before(async () => {
    big = await sharp({ create: { ...BIG, channels: 3, background: { r: 90, g: 120, b: 200 } } })
      .jpeg({ quality: 50, progressive: true, chromaSubsampling: '4:2:0' })
      .toBuffer();
    small = await noisePng(400, 400);
    expect(small.length, 'the small original is larger than the margin').to.be.above(MARGIN + 100 * 1024);
    server = await new ImageServer({
      // At once: its frame is reserved, and decoded, while more of the small image than the margin arrives.
      '/big-now.jpg': serve(big, 'image/jpeg'),
      '/small-trickling.png': paced(small, 'image/png', { afterMs: 15, first: MARGIN + 50 * 1024, restAfterMs: 10, piece: 8 * 1024 }),
      // The small image's first 300 KB at once, the rest 400 ms later; the big one meanwhile.
      '/small-paused.png': paced(small, 'image/png', { afterMs: 0, first: 300 * 1024, restAfterMs: 400, piece: 64 * 1024 }),
      '/big-soon.jpg': paced(big, 'image/jpeg', { afterMs: 80, first: big.length, restAfterMs: 0, piece: 1 }),
    }).listen();
  });
  after(() => server?.close());

  const boundaryOn = (budget: ByteBudget) => new ImageBoundary({ fetcher: localFetcher({ maxBytes: 1024 * 1024, timeoutMs: 10_000, budget }), normalizer, budget });

  it('each image alone is accepted at this budget', async () => {
    const budget = new ByteBudget(BIG_DECODED + big.length + MARGIN);
    for (const path of ['/big-now.jpg', '/small-trickling.png']) {
      using images = await boundaryOn(budget).acquire([server.url(path)]);
      expect(images.accepted).to.have.length(1);
    }
    expect(budget.used).to.equal(0);
  });

  it("a download waits while the request's own large frame is decoded, instead of 503 budget", async () => {
    const budget = new ByteBudget(BIG_DECODED + big.length + MARGIN);
    using images = await boundaryOn(budget).acquire([server.url('/big-now.jpg'), server.url('/small-trickling.png')]);
    expect(images.accepted.map((image) => image.original.width)).to.deep.equal([2048, 400]);
    expect(budget.used).to.equal(images.heldBytes);
  });

  it("a large frame waits for the request's own other image to be normalized, instead of 503 budget", async () => {
    const budget = new ByteBudget(BIG_DECODED + big.length + MARGIN);
    using images = await boundaryOn(budget).acquire([server.url('/small-paused.png'), server.url('/big-soon.jpg')]);
    expect(images.accepted.map((image) => image.original.width)).to.deep.equal([400, 2048]);
  });

  it("room held by another request is still refused at once: only the request's own images are waited for", async () => {
    const budget = new ByteBudget(BIG_DECODED + big.length + MARGIN);
    const other = new BudgetLease(budget);
    expect(other.tryReserve(MARGIN + 1)).to.equal(true);
    const started = performance.now();
    const error = await boundaryOn(budget)
      .acquire([server.url('/big-now.jpg')])
      .catch((e: unknown) => e);
    expect(error).to.include({ kind: 'unavailable', reason: 'budget' });
    expect(performance.now() - started, 'refused without waiting for the other request').to.be.below(2_000);
    other.releaseAll();
    expect(budget.used).to.equal(0);
  });
});
