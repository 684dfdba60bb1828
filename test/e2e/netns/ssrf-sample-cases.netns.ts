// Every sample of docs/spec/ssrf-sample-cases.json (the repository's copy of the spec) against the whole service in a network
// namespace with only loopback (spec 4.1, R22, R23): the
// sample's preferred code (400 invalid_request_payload where the URL cannot be parsed as an
// absolute http(s) URL, 422 remote_evidence_image_rejected for a blocked target, 422 or 503 where
// DNS decides), no connection to any refused address, nothing stored, no internal detail.
// REMOTE_IMAGE_ALLOW_CIDRS is empty. Started by ../hostile-urls-in-namespace.test.ts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { namedPorts, type ServiceOutcome } from '../../support/hostile-urls.ts';
import { hostileHarness } from '../../support/e2e/netns.ts';

interface SampleCase {
  readonly url: string;
  readonly why: string;
  readonly expect: 'rejected' | 'rejected_or_unavailable';
  readonly preferred: string;
}

const REPO = path.resolve(import.meta.dirname, '..', '..', '..');
const cases = JSON.parse(readFileSync(path.join(REPO, 'docs', 'spec', 'ssrf-sample-cases.json'), 'utf8')) as SampleCase[];

function outcomeOf(sample: SampleCase): ServiceOutcome {
  if (sample.expect === 'rejected_or_unavailable') return 'rejected_or_unavailable';
  if (sample.preferred.startsWith('400 invalid_request_payload')) return 'payload';
  if (sample.preferred.startsWith('422 remote_evidence_image_rejected')) return 'rejected';
  throw new Error(`unknown preferred outcome: ${sample.preferred}`);
}

describe('SSRF sample cases against the whole service, loopback-only namespace: each as the sample prefers, no connection (R23)', () => {
  const harness = hostileHarness({}, namedPorts(cases.map((c) => c.url)));

  it('the sample file is read (41 cases or more)', () => {
    expect(cases.length).to.be.at.least(41);
  });

  for (const sample of cases) {
    const outcome = outcomeOf(sample);
    it(`${JSON.stringify(sample.url)} -> ${sample.preferred.split(',')[0]}: ${sample.why}`, async () => {
      await harness().expectOutcome([sample.url], outcome);
      await harness().check();
    });
  }

  it('the samples together, one request second after a URL that would need DNS: the same outcome, at index 1, without a lookup (R8, R23)', async () => {
    for (const sample of cases) {
      // A benign-looking image first that needs DNS, then the sample: the static checks of every
      // URL come before any network work, so a refused sample wins without a lookup.
      const outcome = outcomeOf(sample);
      if (outcome === 'rejected_or_unavailable') continue;
      await harness().expectOutcome(['https://images.example.org/first.png', sample.url], outcome, 1);
    }
    await harness().check();
  });

  it('no guard saw a connection, no attempt beyond the service, nothing generated or stored, over the whole file', () => harness().check());
});
