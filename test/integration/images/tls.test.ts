import net from 'node:net';
import { expect } from 'chai';
import { PNG } from '../../support/images/fixtures.ts';
import { TLS_CA } from '../../support/images/fixtures.ts';
import { expectFailure, secretsOf } from '../../support/images/expect-failure.ts';
import { localFetcher, tableResolver } from '../../support/images/fetchers.ts';
import { ImageServer, redirect, serve } from '../../support/images/image-server.ts';

// Decision: a certificate that fails verification (unknown issuer, wrong name, expired)
// means the peer could not prove it is the host asked for: an unsafe destination,
// rejected (R23), not a transient failure.
describe('https: certificate checked against the URL host while connecting to the checked address (R23)', () => {
  let tlsServer: ImageServer;
  let plain: ImageServer;
  const resolver = tableResolver({ 'img.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });

  before(async () => {
    tlsServer = await new ImageServer(
      {
        '/x.png': serve(PNG, 'image/png'),
        '/to-http': (_req, res) => redirect(plain.url('/x.png'))(_req, res, tlsServer),
      },
      { tls: true },
    ).listen();
    plain = await new ImageServer({
      '/x.png': serve(PNG, 'image/png'),
      '/to-https': (_req, res) => redirect(`https://img.test:${tlsServer.port}/x.png`)(_req, res, plain),
    }).listen();
  });
  after(async () => {
    await tlsServer.close();
    await plain.close();
  });

  it('fetches over https by name, sending SNI and Host for the name', async () => {
    const [image] = await localFetcher({ tlsCa: TLS_CA, resolver }).fetch([`https://img.test:${tlsServer.port}/x.png`]);
    expect(image?.bytes.equals(PNG)).to.equal(true);
    const seen = tlsServer.requests.at(-1)!;
    expect(seen.servername).to.equal('img.test');
    expect(seen.headers.host).to.equal(`img.test:${tlsServer.port}`);
  });

  it('fetches over https by IP literal, checking the IP against the certificate, without SNI', async () => {
    const [image] = await localFetcher({ tlsCa: TLS_CA }).fetch([tlsServer.url('/x.png')]);
    expect(image?.mimeType).to.equal('image/png');
    expect(tlsServer.requests.at(-1)?.servername).to.equal(false);
  });

  it('follows http to https and https to http, each hop checked', async () => {
    const fetcher = localFetcher({ tlsCa: TLS_CA, resolver });
    expect((await fetcher.fetch([plain.url('/to-https')]))[0]?.mimeType).to.equal('image/png');
    expect((await fetcher.fetch([tlsServer.url('/to-http')]))[0]?.mimeType).to.equal('image/png');
  });

  it('rejects a certificate from an unknown issuer (tls)', async () => {
    const url = `https://img.test:${tlsServer.port}/x.png`;
    await expectFailure(localFetcher({ resolver }).fetch([url]), { kind: 'rejected', reason: 'tls' }, secretsOf(url));
  });

  it('rejects a certificate for another name (tls)', async () => {
    const url = `https://other.test:${tlsServer.port}/x.png`;
    await expectFailure(localFetcher({ tlsCa: TLS_CA, resolver }).fetch([url]), { kind: 'rejected', reason: 'tls' }, secretsOf(url));
  });

  it('rejects a TLS handshake answered in plain HTTP (tls)', async () => {
    const raw = net.createServer((s) => {
      s.on('error', () => {});
      s.once('data', () => s.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n'));
    });
    await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
    const url = `https://127.0.0.1:${(raw.address() as net.AddressInfo).port}/x.png`;
    try {
      await expectFailure(localFetcher({ tlsCa: TLS_CA }).fetch([url]), { kind: 'rejected', reason: 'tls' }, secretsOf(url));
    } finally {
      await new Promise<void>((resolve) => raw.close(() => resolve()));
    }
  });
});
