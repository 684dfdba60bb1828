// The hostile-URL list (test/support/hostile-urls.ts), by class of attack, against the whole
// service in a loopback-only network namespace (spec 4.1, R22,
// R23). REMOTE_IMAGE_ALLOW_CIDRS is empty. Outcomes: 400 invalid_request_payload where the value is
// not an absolute http(s) URL (spec 2.1 rule 3, R8); 422 remote_evidence_image_rejected for a
// blocked target however it is spelled; 422 or 503 where only DNS could tell. No connection to
// any refused address, nothing stored, no generator call, no internal detail in any body.
// The same list runs at the fetcher in test/integration/images/netns/. Started by ../hostile-urls-in-namespace.test.ts.
import { ALL_HOSTILE_URLS, HOSTILE_URLS, namedPorts, type ServiceOutcome } from '../../support/hostile-urls.ts';
import { hostileHarness } from '../../support/e2e/netns.ts';

const RULED: Record<ServiceOutcome, string> = {
  rejected: '422 remote_evidence_image_rejected for each, no connection (R23)',
  payload: "400 invalid_request_payload naming the URL's pointer, no connection (spec 2.1 rule 3, R8)",
  rejected_or_unavailable: '422 or 503 for each, never a fetch (R23)',
};

describe('hostile URLs by class of attack against the whole service, loopback-only namespace: ruled code, no connection (R22, R23)', () => {
  const harness = hostileHarness({}, namedPorts(ALL_HOSTILE_URLS));

  for (const { attack, service, urls } of HOSTILE_URLS) {
    it(`${attack}: ${RULED[service]}`, async () => {
      for (const url of urls) await harness().expectOutcome([url], service);
      await harness().check();
    });
  }

  it('a hostile URL anywhere in the request refuses the whole request at its index, before any lookup or connection (R23)', async () => {
    const outcomes: [readonly string[], ServiceOutcome, number][] = [
      [['http://example.com/a.png', 'http://[::ffff:a9fe:a9fe]/b.png'], 'rejected', 1],
      [['https://images.example.org/a.png', 'http://example.net/b.png', 'http://0x7f.1/c.png'], 'rejected', 2],
      [['http://10.0.0.1/a.png', 'http://127.0.0.1/b.png'], 'rejected', 0],
      [['http://example.com/a.png', 'file:///etc/passwd'], 'payload', 1],
    ];
    for (const [urls, outcome, index] of outcomes) await harness().expectOutcome(urls, outcome, index);
    await harness().check();
  });

  it('no guard saw a connection, no attempt beyond the service, nothing generated or stored, over the whole file', () => harness().check());
});
