// R50: the image fetcher's resolver (c-ares, dns.promises.Resolver) against a real nameserver
// on loopback that answers some names and swallows every other query. A silent nameserver costs
// a resolution its deadline and no more (the queries are cancelled, not left running); a name
// whose AAAA queries are dropped still resolves from its A answer within a short grace, and one
// whose A answer comes after its AAAA answer still gets its IPv4 address (the one used); the
// whole fetcher turns a silent nameserver into 503 (timeout) within the image deadline.
import { expect } from 'chai';
import { caresResolver } from '../../../src/images/index.ts';
import { startTestNameserver, type TestNameserver } from '../../support/test-nameserver.ts';
import { PNG } from '../../support/images/fixtures.ts';
import { expectFailure } from '../../support/images/expect-failure.ts';
import { localFetcher } from '../../support/images/fetchers.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';

describe('c-ares resolver of image hosts (R50)', function () {
  this.timeout(20_000);
  let nameserver: TestNameserver;
  let dropsAaaa: TestNameserver;
  let slowA: TestNameserver;
  before(async () => {
    nameserver = await startTestNameserver({ answers: ['good.test'] });
    dropsAaaa = await startTestNameserver({ answers: ['good.test'], swallowAaaa: true });
    slowA = await startTestNameserver({ answers: ['good.test'], aaaa: '2001:db8::1', aDelayMs: 600 });
  });
  after(async () => {
    await nameserver?.close();
    await dropsAaaa?.close();
    await slowA?.close();
  });

  it('answers a name the nameserver answers', async () => {
    const resolve = caresResolver({ servers: [`127.0.0.1:${nameserver.port}`] });
    expect(await resolve('good.test')).to.deep.equal([{ address: '127.0.0.1', family: 4 }]);
  });

  it('a silent nameserver: the resolution ends when its deadline aborts, its queries cancelled', async () => {
    const resolve = caresResolver({ servers: [`127.0.0.1:${nameserver.port}`], timeoutMs: 5_000, tries: 3 });
    const before = nameserver.swallowed;
    const started = performance.now();
    const error = await resolve('silent.test', AbortSignal.timeout(300)).catch((e: unknown) => e);
    const elapsed = performance.now() - started;
    expect((error as NodeJS.ErrnoException).code).to.equal('ECANCELLED');
    expect(elapsed, 'ended at the deadline, not at c-ares own timeout').to.be.below(1_500);
    expect(nameserver.swallowed - before, 'A and AAAA were asked').to.be.at.least(2);
    // Cancelled, not left running: no retry reaches the nameserver afterwards.
    const after = nameserver.swallowed;
    await new Promise((resolve) => setTimeout(resolve, 5_500));
    expect(nameserver.swallowed).to.equal(after);
  });

  it('without a deadline, a silent nameserver still ends in a bounded time (timeout and tries)', async () => {
    const resolve = caresResolver({ servers: [`127.0.0.1:${nameserver.port}`], timeoutMs: 200, tries: 2 });
    const started = performance.now();
    const error = await resolve('silent.test').catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).to.equal('ETIMEOUT');
    expect(performance.now() - started).to.be.below(3_000);
  });

  it('a nameserver that drops AAAA queries: the A answer is used after a short grace, not after c-ares timeout', async () => {
    const resolve = caresResolver({ servers: [`127.0.0.1:${dropsAaaa.port}`], timeoutMs: 5_000, tries: 2 });
    const started = performance.now();
    expect(await resolve('good.test')).to.deep.equal([{ address: '127.0.0.1', family: 4 }]);
    expect(performance.now() - started).to.be.below(1_000);
  });

  it('an A answer later than the AAAA answer is waited for: IPv4 comes first and is the address used', async () => {
    // The socket goes to the first answer; an IPv6 answer alone would send an IPv4-only host's
    // fetch to a family it cannot reach (R22: a public image is fetched).
    const resolve = caresResolver({ servers: [`127.0.0.1:${slowA.port}`], timeoutMs: 5_000, tries: 2 });
    expect(await resolve('good.test')).to.deep.equal([
      { address: '127.0.0.1', family: 4 },
      { address: '2001:db8::1', family: 6 },
    ]);
  });

  it('through the fetcher: a silent nameserver is 503 timeout within the image deadline, an answered name is fetched', async () => {
    const images = await new ImageServer({ '/x.png': serve(PNG, 'image/png') }).listen();
    try {
      const resolver = caresResolver({ servers: [`127.0.0.1:${nameserver.port}`] });
      const fetcher = localFetcher({ resolver, timeoutMs: 800 });
      const started = performance.now();
      await expectFailure(fetcher.fetch([`http://silent.test:${images.port}/x.png`]), { kind: 'unavailable', reason: 'timeout' }, ['silent.test']);
      expect(performance.now() - started).to.be.below(1_800);
      const [image] = await fetcher.fetch([`http://good.test:${images.port}/x.png`]);
      expect(image?.mimeType).to.equal('image/png');
    } finally {
      await images.close();
    }
  });
});
