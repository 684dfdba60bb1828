// Image URLs may name ports 80 and 443 only (IMAGE_ALLOWED_PORTS adds more); an address inside
// REMOTE_IMAGE_ALLOW_CIDRS is exempt, as local tests need. Any other port is refused like an
// unsafe destination (422 remote_evidence_image_rejected, reason bad_port), on the first URL and
// on every redirect hop, without a connection: the fetcher is no port scanner of public hosts.
import net from 'node:net';
import { expect } from 'chai';
import { AddressPolicy } from '../../../src/images/address-policy.ts';
import { loadConfig, ConfigError } from '../../../src/config.ts';
import { PNG } from '../../support/images/fixtures.ts';
import { expectFailure } from '../../support/images/expect-failure.ts';
import { localFetcher, tableResolver } from '../../support/images/fetchers.ts';
import { ImageServer, redirect, serve } from '../../support/images/image-server.ts';

const PUBLIC = '93.184.216.34';

/**
 * Records every outgoing connection and lets none leave the machine: each attempt fails at
 * once as refused. A port that passes the check shows as an attempt (and a 503), one that does
 * not as no attempt (and a 422).
 */
function noEgress(): { attempts: string[]; restore(): void } {
  const attempts: string[] = [];
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]): net.Socket {
    // Called with options, or (by the http client) with an array of normalized arguments.
    const first = args[0];
    const options = (Array.isArray(first) ? first[0] : first) as { host?: string; port?: number };
    const target = `${options.host}:${options.port}`;
    attempts.push(target);
    if (options.host === '127.0.0.1') return (original as (...a: unknown[]) => net.Socket).apply(this, args);
    process.nextTick(() => this.destroy(Object.assign(new Error('refused by the test'), { code: 'ECONNREFUSED' })));
    return this;
  } as typeof original;
  return { attempts, restore: () => void (net.Socket.prototype.connect = original) };
}

describe('image URL ports: 80 and 443, IMAGE_ALLOWED_PORTS, allow-CIDR addresses exempt', () => {
  let server: ImageServer;
  let spy: ReturnType<typeof noEgress>;
  before(async () => {
    server = await new ImageServer({
      '/x.png': serve(PNG, 'image/png'),
      '/to-public-name-port': redirect(`http://pub.test:8080/x.png`),
      '/to-public-literal-port': redirect(`http://${PUBLIC}:8081/x.png`),
      '/to-public-443': redirect(`https://pub.test/x.png`),
      '/to-own-port': (_req, res, s) => redirect(`http://img.test:${s.port}/x.png`)(_req, res, s),
    }).listen();
  });
  after(() => server.close());
  beforeEach(() => {
    spy = noEgress();
  });
  afterEach(() => spy.restore());

  it('a public host on port 8080 is refused (bad_port) before DNS is asked, with no allow CIDRs', async () => {
    const calls: string[] = [];
    const fetcher = localFetcher({ allowCidrs: [], resolver: tableResolver({ 'pub.test': [PUBLIC] }, calls) });
    await expectFailure(fetcher.fetch(['http://pub.test:8080/x.png']), { kind: 'rejected', reason: 'bad_port' }, ['pub.test', '8080']);
    await expectFailure(fetcher.fetch([`https://${PUBLIC}:8443/x.png`]), { kind: 'rejected', reason: 'bad_port' }, [PUBLIC, '8443']);
    expect(calls).to.deep.equal([]);
    expect(spy.attempts).to.deep.equal([]);
  });

  it('with allow CIDRs, a name answering a public address on port 8080 is refused after the lookup, without a connection', async () => {
    const fetcher = localFetcher({ resolver: tableResolver({ 'pub.test': [PUBLIC] }) });
    await expectFailure(fetcher.fetch(['http://pub.test:8080/x.png']), { kind: 'rejected', reason: 'bad_port' });
    expect(spy.attempts).to.deep.equal([]);
  });

  it('a redirect hop naming a refused port is refused like an unsafe destination, by name and by literal', async () => {
    const fetcher = localFetcher({ resolver: tableResolver({ 'img.test': ['127.0.0.1'], 'pub.test': [PUBLIC] }) });
    for (const path of ['/to-public-name-port', '/to-public-literal-port']) {
      spy.attempts.length = 0;
      await expectFailure(fetcher.fetch([server.url(path)]), { kind: 'rejected', reason: 'bad_port' }, [PUBLIC, '8080', '8081']);
      expect(spy.attempts, path).to.deep.equal([`127.0.0.1:${server.port}`]);
    }
  });

  it('an address inside an allow CIDR may use any port, on the first URL and on a redirect (local testing)', async () => {
    const fetcher = localFetcher({ resolver: tableResolver({ 'img.test': ['127.0.0.1'] }) });
    const [image] = await fetcher.fetch([server.url('/to-own-port')]);
    expect(image?.mimeType).to.equal('image/png');
  });

  it('port 443 of a public host passes the check (the connection is attempted; here it is refused: 503)', async () => {
    const fetcher = localFetcher({ resolver: tableResolver({ 'img.test': ['127.0.0.1'], 'pub.test': [PUBLIC] }) });
    await expectFailure(fetcher.fetch([server.url('/to-public-443')]), { kind: 'unavailable', reason: 'connection' });
    expect(spy.attempts).to.deep.equal([`127.0.0.1:${server.port}`, `${PUBLIC}:443`]);
  });

  it('IMAGE_ALLOWED_PORTS adds ports: 8080 then passes the check (the attempt is made, refused here: 503)', async () => {
    const fetcher = localFetcher({ allowCidrs: [], allowedPorts: [8080], resolver: tableResolver({ 'pub.test': [PUBLIC] }) });
    await expectFailure(fetcher.fetch(['http://pub.test:8080/x.png']), { kind: 'unavailable', reason: 'connection' });
    expect(spy.attempts).to.deep.equal([`${PUBLIC}:8080`]);
    await expectFailure(fetcher.fetch(['http://pub.test:8081/x.png']), { kind: 'rejected', reason: 'bad_port' });
  });

  it('the policy: 80 and 443 always, extra ports when configured, any port only for an allow-CIDR address', () => {
    const bytes = (ip: string) => Buffer.from(ip.split('.').map(Number));
    const policy = new AddressPolicy({ allowCidrs: ['127.0.0.1/32'], extraPorts: [8443] });
    expect([80, 443, 8443, 8080].map((p) => policy.isPortAllowed(p))).to.deep.equal([true, true, true, false]);
    expect(policy.isPortAllowed(8080, bytes('127.0.0.1'))).to.equal(true);
    expect(policy.isPortAllowed(8080, bytes('127.0.0.2'))).to.equal(false);
    expect(policy.isPortAllowed(8080, bytes(PUBLIC))).to.equal(false);
    expect(new AddressPolicy().hasExemptions).to.equal(false);
  });

  it('IMAGE_ALLOWED_PORTS is a comma list of ports 1-65535; anything else stops the start naming the variable', () => {
    expect(loadConfig({}).imageAllowedPorts).to.deep.equal([]);
    expect(loadConfig({ IMAGE_ALLOWED_PORTS: ' 8443, 8080,8443 ' }).imageAllowedPorts).to.deep.equal([8443, 8080]);
    for (const bad of ['0', '65536', 'http', '80;443', '-1', '1.5', '8080,x']) {
      expect(() => loadConfig({ IMAGE_ALLOWED_PORTS: bad }), bad).to.throw(ConfigError, /IMAGE_ALLOWED_PORTS/);
    }
  });
});
