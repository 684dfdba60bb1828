import net from 'node:net';
import { expect } from 'chai';
import { PNG } from '../../support/images/fixtures.ts';
import { spyOnConnections } from '../../support/images/connection-spy.ts';
import type { ConnectionSpy } from '../../support/images/connection-spy.ts';
import type { ImageFetchReason } from '../../../src/images/index.ts';
import { expectFailure, secretsOf } from '../../support/images/expect-failure.ts';
import { localFetcher, tableResolver } from '../../support/images/fetchers.ts';
import { ImageServer, redirect, serve } from '../../support/images/image-server.ts';

describe('redirects: handled by the boundary, each hop a new target checked from scratch (R22, R23)', () => {
  let server: ImageServer;
  let v6guard: net.Server;
  let v6port = 0;
  let v6connections = 0;
  let spy: ConnectionSpy;

  before(async () => {
    v6guard = net.createServer((s) => {
      v6connections++;
      s.destroy();
    });
    await new Promise<void>((resolve) => v6guard.listen(0, '::1', resolve));
    v6port = (v6guard.address() as net.AddressInfo).port;
    const chain = (n: number): Record<string, ReturnType<typeof redirect>> =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`/chain${n}-${i}`, redirect(i + 1 < n ? `/chain${n}-${i + 1}` : '/img.png')]));
    server = await new ImageServer({
      '/img.png': serve(PNG, 'image/png'),
      ...chain(3),
      ...chain(4),
      '/r301': redirect('/img.png', 301),
      '/r303': redirect('/img.png', 303),
      '/r307': redirect('/img.png', 307),
      '/r308': redirect('/img.png', 308),
      '/absolute': (_req, res, s) => redirect(s.url('/img.png'))(_req, res, s),
      '/via-name': (_req, res, s) => redirect(`http://img.test:${s.port}/img.png`)(_req, res, s),
      '/to-10': redirect('http://10.0.0.1/img.png'),
      '/to-metadata': redirect('http://169.254.169.254/latest/meta-data/'),
      '/to-metadata-decimal': redirect('http://2852039166/'),
      '/to-v6-loopback': (_req, res) => redirect(`http://[::1]:${v6port}/img.png`)(_req, res, server),
      '/to-mapped': (_req, res, s) => redirect(`http://[::ffff:127.0.0.1]:${s.port}/img.png`)(_req, res, s),
      '/to-127-2': (_req, res, s) => redirect(`http://127.0.0.2:${s.port}/img.png`)(_req, res, s),
      '/to-localhost': (_req, res, s) => redirect(`http://localhost:${s.port}/img.png`)(_req, res, s),
      '/to-internal-name': redirect('http://internal.test/img.png'),
      '/to-userinfo': (_req, res, s) => redirect(`http://user:secret@127.0.0.1:${s.port}/img.png`)(_req, res, s),
      '/to-file': redirect('file:///etc/passwd'),
      '/to-data': redirect('data:image/png;base64,iVBORw0KGgo='),
      '/to-port-0': redirect('http://127.0.0.1:0/img.png'),
      '/to-invalid': redirect('http://[::1/img.png'),
      '/no-location': (_req, res) => {
        res.writeHead(302);
        res.end();
      },
      '/empty-location': redirect(''),
      '/loop-a': redirect('/loop-b'),
      '/loop-b': redirect('/loop-a'),
      '/self': redirect('/self'),
    }).listen();
  });
  after(async () => {
    await server.close();
    await new Promise<void>((resolve) => v6guard.close(() => resolve()));
  });
  beforeEach(() => {
    spy = spyOnConnections();
  });
  afterEach(() => spy.restore());

  const onlyTheImageServer = (): void => {
    expect(spy.attempts, 'the fetch connected somewhere').to.include(`127.0.0.1:${server.port}`);
    for (const attempt of spy.attempts) expect(attempt).to.equal(`127.0.0.1:${server.port}`);
  };

  for (const code of [301, 302, 303, 307, 308]) {
    it(`follows a ${code} within the host`, async () => {
      const path = code === 302 ? '/chain3-2' : `/r${code}`;
      const [image] = await localFetcher().fetch([server.url(path)]);
      expect(image?.bytes.equals(PNG)).to.equal(true);
    });
  }

  it('follows exactly IMAGE_MAX_REDIRECTS hops (R22: at most 3)', async () => {
    const [image] = await localFetcher({ maxRedirects: 3 }).fetch([server.url('/chain3-0')]);
    expect(image?.bytes.equals(PNG)).to.equal(true);
  });

  it('rejects a chain one hop longer than the limit (redirect_limit)', async () => {
    const url = server.url('/chain4-0');
    await expectFailure(localFetcher({ maxRedirects: 3 }).fetch([url]), { kind: 'rejected', reason: 'redirect_limit' }, secretsOf(url));
  });

  it('rejects any redirect when the limit is 0', async () => {
    const url = server.url('/r301');
    await expectFailure(localFetcher({ maxRedirects: 0 }).fetch([url]), { kind: 'rejected', reason: 'redirect_limit' }, secretsOf(url));
  });

  it('follows an absolute Location and one through a host name, resolved once and checked', async () => {
    const calls: string[] = [];
    const fetcher = localFetcher({ resolver: tableResolver({ 'img.test': ['127.0.0.1'] }, calls) });
    await fetcher.fetch([server.url('/absolute'), server.url('/via-name')]);
    expect(calls).to.deep.equal(['img.test']);
    expect(server.requests.at(-1)?.headers.host).to.equal(`img.test:${server.port}`);
  });

  const refused: [string, ImageFetchReason][] = [
    ['/to-10', 'blocked_address'],
    ['/to-metadata', 'blocked_address'],
    ['/to-metadata-decimal', 'blocked_address'],
    ['/to-v6-loopback', 'blocked_address'],
    ['/to-mapped', 'blocked_address'],
    ['/to-127-2', 'blocked_address'],
    ['/to-localhost', 'blocked_name'],
    ['/to-userinfo', 'userinfo'],
    ['/to-file', 'bad_scheme'],
    ['/to-data', 'bad_scheme'],
    ['/to-port-0', 'bad_port'],
    ['/to-invalid', 'invalid_url'],
    ['/no-location', 'bad_redirect'],
    ['/empty-location', 'bad_redirect'],
    ['/loop-a', 'redirect_loop'],
    ['/self', 'redirect_loop'],
  ];
  for (const [path, reason] of refused) {
    it(`${path} is rejected (${reason}) without connecting anywhere but the first host (R23 unsafe redirect)`, async () => {
      const url = server.url(path);
      const secrets = [...secretsOf(url), '10.0.0.1', '169.254.169.254', String(v6port), 'secret', 'internal.test'];
      await expectFailure(localFetcher().fetch([url]), { kind: 'rejected', reason }, secrets);
      onlyTheImageServer();
      expect(v6connections).to.equal(0);
    });
  }

  it('checks a redirect to a name with the resolver, refusing a blocked answer before connecting', async () => {
    const fetcher = localFetcher({ resolver: tableResolver({ 'internal.test': ['10.1.2.3'] }) });
    await expectFailure(fetcher.fetch([server.url('/to-internal-name')]), { kind: 'rejected', reason: 'blocked_address' }, ['10.1.2.3', 'internal.test']);
    onlyTheImageServer();
  });
});
