import { expect } from 'chai';
import { PNG } from '../../support/images/fixtures.ts';
import { spyOnConnections } from '../../support/images/connection-spy.ts';
import type { ConnectionSpy } from '../../support/images/connection-spy.ts';
import { expectFailure } from '../../support/images/expect-failure.ts';
import { localFetcher, tableResolver } from '../../support/images/fetchers.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';

describe('DNS: resolve once, check every answer, connect to the checked address (R23)', () => {
  let server: ImageServer;
  let spy: ConnectionSpy;
  before(async () => {
    server = await new ImageServer({ '/x.png': serve(PNG, 'image/png') }).listen();
  });
  after(() => server.close());
  beforeEach(() => {
    // Compared as a set: an HTTP interceptor loaded by other test files (nock) may
    // pass one connection through Socket#connect twice.
    spy = spyOnConnections();
  });
  afterEach(() => spy.restore());

  it('connects to the resolved, checked address and sends the name in Host', async () => {
    const calls: string[] = [];
    const fetcher = localFetcher({ resolver: tableResolver({ 'img.test': ['127.0.0.1'] }, calls) });
    await fetcher.fetch([`http://img.test:${server.port}/x.png`]);
    expect(calls).to.deep.equal(['img.test']);
    expect([...new Set(spy.attempts)]).to.deep.equal([`127.0.0.1:${server.port}`]);
    expect(server.requests.at(-1)?.headers.host).to.equal(`img.test:${server.port}`);
  });

  it('passes the name without trailing dots to the resolver, keeping the Host header as written', async () => {
    const calls: string[] = [];
    const fetcher = localFetcher({ resolver: tableResolver({ 'img.test': ['127.0.0.1'] }, calls) });
    await fetcher.fetch([`http://IMG.test.:${server.port}/x.png`]);
    expect(calls).to.deep.equal(['img.test']);
    expect(server.requests.at(-1)?.headers.host).to.equal(`img.test.:${server.port}`);
  });

  it('does not re-resolve: a rebinding resolver cannot move the connection after the check', async () => {
    let n = 0;
    const fetcher = localFetcher({ resolver: async () => [{ address: n++ === 0 ? '127.0.0.1' : '169.254.169.254' }] });
    await fetcher.fetch([`http://img.test:${server.port}/x.png`]);
    expect(n).to.equal(1);
    expect([...new Set(spy.attempts)]).to.deep.equal([`127.0.0.1:${server.port}`]);
  });

  const mixed: [string, string[]][] = [
    ['allowed then blocked', ['127.0.0.1', '10.0.0.1']],
    ['blocked then allowed', ['169.254.169.254', '127.0.0.1']],
    ['allowed and a link-local IPv6 with zone', ['127.0.0.1', 'fe80::1%eth0']],
    ['allowed and IPv4-mapped loopback', ['127.0.0.1', '::ffff:127.0.0.2']],
    ['many allowed and one blocked last', [...Array<string>(20).fill('127.0.0.1'), '100.100.100.200']],
    ['allowed and an unparsable answer', ['127.0.0.1', 'not-an-ip']],
    ['allowed and a leading-zero answer', ['127.0.0.1', '0177.0.0.1']],
  ];
  for (const [title, answers] of mixed) {
    it(`refuses a mixed answer (${title}) without connecting`, async () => {
      const before = server.connections;
      const fetcher = localFetcher({ resolver: tableResolver({ 'img.test': answers }) });
      await expectFailure(fetcher.fetch([`http://img.test:${server.port}/x.png`]), { kind: 'rejected', reason: 'blocked_address' }, [
        'img.test',
        String(server.port),
        ...answers.filter((a) => a !== '127.0.0.1'),
      ]);
      expect(server.connections).to.equal(before);
      expect(spy.attempts).to.deep.equal([]);
    });
  }
});
