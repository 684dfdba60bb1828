// R45: the generator's fetch (generatorFetch) goes through the egress proxy (CONNECT for https://,
// an absolute-URI request for a plain http:// base URL), leaves
// NO_PROXY's hosts direct, and fails a tunnel that the proxy closes without answering instead of
// connecting again without end (Node 24's bundled undici, nodejs/undici#3897; the undici package
// from 8.13 fails it with UND_ERR_PRX_CONN, which the generator reads as unreachable, R42).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { generatorFetch } from '../../../src/shared/egress-proxy.ts';
import { startForwardProxy, type ForwardProxy } from '../../support/forward-proxy.ts';

describe("the generator's fetch through the egress proxy (R45)", () => {
  let proxy: ForwardProxy;
  let origin: Server;
  let target: string;

  before(async () => {
    proxy = await startForwardProxy();
    origin = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('from the origin'));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    target = `127.0.0.1:${(origin.address() as AddressInfo).port}`;
  });
  afterEach(() => {
    proxy.seen.length = 0;
    proxy.answerConnect(target, undefined);
  });
  after(async () => {
    origin.closeAllConnections();
    await new Promise<void>((resolve) => origin.close(() => resolve()));
    await proxy.close();
  });

  const proxied = async (noProxy?: string): Promise<typeof fetch> => {
    const f = await generatorFetch({ httpsProxy: proxy.url, httpProxy: proxy.url, noProxy }, {});
    if (f === undefined) throw new Error('expected a fetch with a proxy configured');
    return f;
  };

  it('is undefined without a proxy: the SDK keeps its own', async () => {
    expect(await generatorFetch({ httpsProxy: undefined, httpProxy: undefined, noProxy: '127.0.0.1' }, {})).to.equal(undefined);
  });

  it('reaches the origin through the proxy', async () => {
    const url = `http://${target}/v1beta/models`;
    const res = await (await proxied())(url);
    expect(await res.text()).to.equal('from the origin');
    expect(proxy.seen).to.deep.equal([{ kind: 'absolute', target, url }]);
  });

  it('goes direct to a host NO_PROXY names', async () => {
    const res = await (await proxied('127.0.0.1'))(`http://${target}/v1beta/models`);
    expect(await res.text()).to.equal('from the origin');
    expect(proxy.seen).to.deep.equal([]);
  });

  it('fails a tunnel the proxy closes without answering, once, with UND_ERR_PRX_CONN, and asks no more', async () => {
    const closed = 'gemini-closed-by-the-proxy.test:443';
    proxy.answerConnect(closed, 'close');
    try {
      const started = performance.now();
      const error = await (await proxied())(`https://${closed}/v1beta/models`, { signal: AbortSignal.timeout(5_000) }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(performance.now() - started, 'failed, not held until the abort').to.be.below(4_000);
      expect((error as { cause?: { code?: unknown } } | undefined)?.cause?.code).to.equal('UND_ERR_PRX_CONN');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(proxy.seen).to.deep.equal([{ kind: 'connect', target: closed }]);
    } finally {
      proxy.answerConnect(closed, undefined);
    }
  });
});
