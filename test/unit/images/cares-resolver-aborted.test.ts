// R50: an image whose deadline has passed before its host is resolved sends no DNS query: the
// resolution ends at once, the way a cancelled one does (ECANCELLED), instead of leaving A and
// AAAA queries to run on to c-ares' own timeouts and tries against a nameserver that never
// answers. A nameserver on loopback counts what reaches it.
import { expect } from 'chai';
import { caresResolver } from '../../../src/images/index.ts';
import { startTestNameserver, type TestNameserver } from '../../support/test-nameserver.ts';

describe('c-ares resolver, deadline passed before the first query (R50)', function () {
  this.timeout(5_000);
  let nameserver: TestNameserver;
  before(async () => {
    nameserver = await startTestNameserver({ answers: ['good.test'] });
  });
  after(async () => {
    await nameserver?.close();
  });

  it('an aborted signal: rejected at once as cancelled, and no query reaches the nameserver', async () => {
    const resolve = caresResolver({ servers: [`127.0.0.1:${nameserver.port}`], timeoutMs: 5_000, tries: 3 });
    const controller = new AbortController();
    controller.abort();
    const before = nameserver.swallowed;
    const started = performance.now();
    const error = await resolve('silent.test', controller.signal).catch((e: unknown) => e);
    expect((error as NodeJS.ErrnoException).code).to.equal('ECANCELLED');
    expect(performance.now() - started, 'at once, not at c-ares own timeout (3 tries of 5 s)').to.be.below(1_000);
    // A query sent anyway would reach the nameserver within milliseconds on loopback.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(nameserver.swallowed - before, 'queries sent').to.equal(0);
  });

  it('a signal that aborts while the queries wait still cancels them (the listener is in place)', async () => {
    const resolve = caresResolver({ servers: [`127.0.0.1:${nameserver.port}`], timeoutMs: 5_000, tries: 3 });
    const controller = new AbortController();
    const pending = resolve('silent.test', controller.signal).catch((e: unknown) => e);
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    const error = await pending;
    expect((error as NodeJS.ErrnoException).code).to.equal('ECANCELLED');
    expect(performance.now() - started).to.be.below(1_000);
  });

  it('a signal not aborted: the name is resolved as usual', async () => {
    const resolve = caresResolver({ servers: [`127.0.0.1:${nameserver.port}`] });
    expect(await resolve('good.test', new AbortController().signal)).to.deep.equal([{ address: '127.0.0.1', family: 4 }]);
  });
});
