// Every sample of docs/spec/ssrf-sample-cases.json gives its expected outcome and
// no connection is made. Run by hostile-urls-in-namespace.test.ts inside a
// network namespace with only loopback.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expectFailure, secretsOf } from '../../../support/images/expect-failure.ts';
import { tableResolver } from '../../../support/images/fetchers.ts';
import { REPO_ROOT } from '../../../support/images/fixtures.ts';
import { guardConnections, hostileFetcher, IN_NETNS } from '../../../support/images/hostile.ts';

interface SampleCase {
  readonly url: string;
  readonly why: string;
  readonly expect: 'rejected' | 'rejected_or_unavailable';
  readonly preferred: string;
}

const cases = JSON.parse(readFileSync(path.join(REPO_ROOT, 'docs', 'spec', 'ssrf-sample-cases.json'), 'utf8')) as SampleCase[];

// Names in the sample answered the way an attacker's DNS would.
const hostileDns = tableResolver({
  metadata: ['169.254.169.254'],
  localhost: ['127.0.0.1', '::1'],
  '7f000001.a9fea9fe.rbndr.us': ['127.0.0.1'],
  'example.com': ['127.0.0.1'],
});

describe('SSRF sample cases: each refused as ruled, with no connection (R23)', () => {
  const guard = guardConnections(cases.map((c) => c.url));

  for (const [resolverName, resolver] of [
    ['hostile resolver', hostileDns],
    ['system resolver, no network', undefined],
  ] as const) {
    describe(`with the ${resolverName}`, () => {
      before(() => {
        // The system resolver is used only where nothing beyond loopback exists.
        if (resolver === undefined) expect(IN_NETNS, 'run through hostile-urls-in-namespace.test.ts').to.equal(true);
      });
      for (const sample of cases) {
        it(`${JSON.stringify(sample.url)} is ${sample.expect} (${sample.preferred}): ${sample.why}`, async () => {
          const kind = sample.expect === 'rejected' ? 'rejected' : 'rejected_or_unavailable';
          await expectFailure(hostileFetcher(resolver).fetch([sample.url]), { kind }, secretsOf(sample.url));
          await guard.check();
        });
      }
    });
  }

  it('no port guard saw a connection and no connection was attempted, over the whole file', () => guard.check());
});
