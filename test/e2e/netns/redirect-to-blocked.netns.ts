// Redirects from an allowed local image host to blocked targets, against the whole service in a
// loopback-only network namespace (spec 4.1, R22, R23). Only
// here is REMOTE_IMAGE_ALLOW_CIDRS set (127.0.0.1/32, the origin): every hop is a new target
// checked from scratch, so a redirect to any other loopback spelling, a private or metadata
// address, another scheme, a loop or a chain over IMAGE_MAX_REDIRECTS gives 422
// remote_evidence_image_rejected, and nothing connects to the target. A redirect within the
// origin is followed (the control: the namespace and the service work).
// Started by ../hostile-urls-in-namespace.test.ts.
import { expect } from 'chai';
import { client } from '../../support/http-client.ts';
import { createCustomerFixture } from '../../support/database.ts';
import { ImageServer, redirect, serve } from '../../support/images/image-server.ts';
import type { Route } from '../../support/images/image-server.ts';
import { PNG } from '../../support/images/fixtures.ts';
import { namedPorts } from '../../support/hostile-urls.ts';
import { hostileHarness, secretsOf } from '../../support/e2e/netns.ts';

const MAX_REDIRECTS = 3;

// Targets no hop may reach. None of them is 127.0.0.1 itself: that address is allowed here.
const BLOCKED_TARGETS: Record<string, string> = {
  'another loopback address': 'http://127.0.0.2/x.png',
  'another loopback address on a guarded port': 'http://127.0.0.2:8080/x.png',
  'a loopback address as one number': 'http://2130706434/x.png',
  'the unspecified address': 'http://0.0.0.0/x.png',
  'the unspecified address, short': 'http://0/x.png',
  'IPv6 loopback': 'http://[::1]/x.png',
  'IPv6 loopback on a guarded port': 'http://[::1]:8080/x.png',
  'IPv6 unspecified': 'http://[::]/x.png',
  'the allowed address IPv4-mapped': 'http://[::ffff:127.0.0.1]/x.png',
  'the allowed address IPv4-compatible': 'http://[::127.0.0.1]/x.png',
  'the allowed address in NAT64': 'http://[64:ff9b::7f00:1]/x.png',
  'the allowed address in 6to4': 'http://[2002:7f00:1::]/x.png',
  'the allowed address in Teredo': 'http://[2001:0:7f00:1::]/x.png',
  'cloud metadata': 'http://169.254.169.254/latest/meta-data/iam/security-credentials/',
  'cloud metadata in hex': 'http://0xa9fea9fe/latest/meta-data/',
  'cloud metadata over https': 'https://169.254.169.254/',
  'a private address': 'http://10.0.0.1/x.png',
  'a private address, IPv4-mapped': 'http://[::ffff:192.168.0.1]/x.png',
  'a unique-local IPv6 address': 'http://[fd00:ec2::254]/x.png',
  'localhost by name': 'http://localhost:8080/x.png',
  'a subdomain of localhost': 'http://img.localhost/x.png',
  'another loopback over https': 'https://127.0.0.2:8443/x.png',
  'a protocol-relative blocked host': '//127.0.0.2:8080/x.png',
  'a file URL': 'file:///etc/passwd',
  'a gopher URL at Redis': 'gopher://127.0.0.2:6379/_INFO',
  'a data URL': `data:image/png;base64,${PNG.toString('base64')}`,
  'userinfo in front of the allowed address': 'http://user:pass@127.0.0.1/ok.png',
};

// A hostile resolver could answer anything for these; the namespace has no DNS at all.
const NAME_TARGETS: Record<string, string> = {
  'a rebinding name': 'http://7f000001.a9fea9fe.rbndr.us/x.png',
  'a wildcard-DNS name for loopback': 'http://127.0.0.1.nip.io/x.png',
};

describe('redirects from an allowed host to blocked targets, whole service, loopback-only namespace: 422 and no connection (R22, R23)', () => {
  const harness = hostileHarness(
    { REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32', IMAGE_MAX_REDIRECTS: String(MAX_REDIRECTS) },
    namedPorts([...Object.values(BLOCKED_TARGETS), ...Object.values(NAME_TARGETS)].map((t) => new URL(t, 'http://127.0.0.9/').href)),
  );
  let origin: ImageServer;
  const routes: Record<string, Route> = { '/ok.png': serve(PNG, 'image/png') };
  const blockedPaths: [string, string, string][] = [];
  const namePaths: [string, string][] = [];
  let n = 0;
  for (const [what, target] of Object.entries(BLOCKED_TARGETS)) {
    for (const status of [301, 302, 303, 307, 308]) {
      const path = `/r${n++}-${status}.png`;
      routes[path] = redirect(target, status);
      blockedPaths.push([what, path, target]);
    }
  }
  for (const [what, target] of Object.entries(NAME_TARGETS)) {
    const path = `/n${n++}.png`;
    routes[path] = redirect(target);
    namePaths.push([what, path]);
  }
  // Two hops within the origin, then a blocked target.
  routes['/chain-1.png'] = redirect('/chain-2.png');
  routes['/chain-2.png'] = redirect('http://[::1]:8080/x.png', 307);
  routes['/loop.png'] = redirect('/loop.png');
  routes['/ping.png'] = redirect('/pong.png');
  routes['/pong.png'] = redirect('/ping.png');
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) routes[`/long-${hop}.png`] = redirect(hop === MAX_REDIRECTS ? '/ok.png' : `/long-${hop + 1}.png`);
  // Exactly IMAGE_MAX_REDIRECTS hops: within-limit -> long-2 -> long-3 -> ok.
  routes['/within-limit.png'] = redirect('/long-2.png');

  before(async () => {
    origin = await new ImageServer(routes).listen('127.0.0.1');
    harness().allowedPorts.add(origin.port);
  });
  after(() => origin?.close());

  it('control: a redirect within the allowed origin, up to the limit, is followed and gives 201 (R22)', async () => {
    const customer = await createCustomerFixture();
    const res = await client(harness().service.url, customer.apiKey).createReport({
      context: 'field_inspection',
      evidence: { images: [{ url: origin.url('/ok.png') }, { url: origin.url('/within-limit.png') }] },
    });
    expect(res.status, res.text).to.equal(201);
  });

  it('each blocked target, after each redirect status, gives 422 and nothing connects to it (R23)', async () => {
    for (const [what, path, target] of blockedPaths) {
      await harness()
        .expectOutcome([origin.url(path)], 'rejected', 0, [...secretsOf(target), path])
        .catch((e: Error) => {
          throw new Error(`${what} (${target}) via ${path}: ${e.message}`);
        });
    }
    await harness().check(1);
  });

  it('a blocked target at the end of a chain within the origin gives 422; the origin saw both hops (R22)', async () => {
    const seen = origin.requests.length;
    await harness().expectOutcome([origin.url('/ok.png'), origin.url('/chain-1.png')], 'rejected', 1);
    expect(origin.requests.slice(seen).map((r) => r.path).sort()).to.deep.equal(['/chain-1.png', '/chain-2.png', '/ok.png']);
    await harness().check(1);
  });

  it('a redirect loop and a chain longer than IMAGE_MAX_REDIRECTS give 422 (R22, R23)', async () => {
    for (const path of ['/loop.png', '/ping.png', '/long-0.png']) await harness().expectOutcome([origin.url(path)], 'rejected');
    await harness().check(1);
  });

  it('a redirect to a name only DNS could judge gives 422 or 503, never a fetch (R23)', async () => {
    for (const [, path] of namePaths) await harness().expectOutcome([origin.url(path)], 'rejected_or_unavailable');
    await harness().check(1);
  });

  it('no guard saw a connection, no attempt beyond the origin and the service, over the whole file', () => harness().check(1));
});
