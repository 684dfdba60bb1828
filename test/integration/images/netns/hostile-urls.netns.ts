// The hostile-URL list (test/support/hostile-urls.ts) at the fetcher, by class of attack (spec 4.1,
// R22, R23): numeric encodings, IPv6 spellings and embeddings, special names, userinfo, ports,
// schemes, unparsable values and DNS answers. Every one refused with the class's reason, no
// connection attempted. The same list runs against the whole service in test/e2e/netns/.
import { expect } from 'chai';
import { expectFailure, secretsOf } from '../../../support/images/expect-failure.ts';
import { tableResolver } from '../../../support/images/fetchers.ts';
import { guardConnections, hostileFetcher, IN_NETNS } from '../../../support/images/hostile.ts';
import { ALL_HOSTILE_URLS, HOSTILE_DNS, HOSTILE_URLS, REFUSED_WITH_127_0_0_1_ALLOWED } from '../../../support/hostile-urls.ts';
import { REJECTED_REASONS, type ImageFetchReason } from '../../../../src/images/index.ts';

// Names whose DNS answers are hostile: the resolver is injected, nothing leaves the process.
const resolver = tableResolver(HOSTILE_DNS);

const kindOf = (reason: ImageFetchReason) => ((REJECTED_REASONS as readonly string[]).includes(reason) ? 'rejected' : 'unavailable');

/** The URL's host and port, and the addresses its name is answered with: none may reach the error. */
function secretsWithAnswers(url: string): string[] {
  const name = URL.canParse(url) ? new URL(url).hostname : '';
  return [...secretsOf(url), ...(HOSTILE_DNS[name] ?? [])];
}

/** Names the fetcher would have to look up: their outcome depends on the resolver. */
const NEEDING_DNS = HOSTILE_URLS.filter((c) => c.service === 'rejected_or_unavailable').flatMap((c) => c.urls);

describe('hostile URLs beyond the sample: refused by class of attack, no connection (R22, R23)', () => {
  const guard = guardConnections(ALL_HOSTILE_URLS);

  it('the list holds every URL once, and the loopback-allowed set is drawn from it', () => {
    expect(ALL_HOSTILE_URLS.length).to.equal(new Set(ALL_HOSTILE_URLS).size);
    expect(ALL_HOSTILE_URLS).to.include.members([...REFUSED_WITH_127_0_0_1_ALLOWED]);
  });

  for (const { attack, fetcher: reason, urls } of HOSTILE_URLS) {
    it(`${attack}: every one ${kindOf(reason)} as ${reason} before any socket`, async () => {
      for (const url of urls) {
        await expectFailure(hostileFetcher(resolver).fetch([url]), { kind: kindOf(reason), reason }, secretsWithAnswers(url)).catch((e: Error) => {
          throw new Error(`${JSON.stringify(url)}: ${e.message}`);
        });
      }
      await guard.check();
    });
  }

  it('with REMOTE_IMAGE_ALLOW_CIDRS=127.0.0.1/32, every other loopback spelling is still rejected', async () => {
    for (const url of REFUSED_WITH_127_0_0_1_ALLOWED) {
      await expectFailure(hostileFetcher(resolver, ['127.0.0.1/32']).fetch([url]), { kind: 'rejected' }, secretsWithAnswers(url)).catch((e: Error) => {
        throw new Error(`${JSON.stringify(url)}: ${e.message}`);
      });
    }
    await guard.check();
  });

  it('a hostile URL anywhere in the request refuses the whole request at its index, before any connection', async () => {
    const urls = ['http://93.184.216.34/a.png', 'http://public.test/b.png', 'http://[::ffff:a9fe:a9fe]/c.png'];
    await expectFailure(hostileFetcher(resolver).fetch(urls), { kind: 'rejected', reason: 'blocked_address', index: 2 }, ['a9fe', '169.254']);
    await guard.check();
  });

  it('with the system resolver and no network, names are refused or unavailable, never fetched', async () => {
    // Only inside the namespace: outside it the system resolver could reach a real DNS server.
    expect(IN_NETNS, 'run through hostile-urls-in-namespace.test.ts').to.equal(true);
    for (const url of NEEDING_DNS) {
      await expectFailure(hostileFetcher(undefined).fetch([url]), { kind: 'rejected_or_unavailable' }, secretsOf(url)).catch((e: Error) => {
        throw new Error(`${JSON.stringify(url)}: ${e.message}`);
      });
    }
    await guard.check();
  });

  it('no port guard saw a connection and no connection was attempted, over the whole file', () => guard.check());
});
