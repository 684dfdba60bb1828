// Unit tier: when several steps would fail, the earliest in the specification's order
// answers (spec section 1), whatever fails later; the quota comes before any fetch (step 6).
import { expect } from 'chai';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { codeOf, IMAGE_REQUEST, principal, readable, unreadable, UseCaseHarness } from '../../support/unit/use-case.ts';

const exhausted = readable({ limit: 3, used: 3, usageVisible: true });

describe('create report, unit tier: the earliest failing step answers (spec section 1)', () => {
  it('rate limit (3) before entitlement (4)', async () => {
    const h = new UseCaseHarness();
    h.rateLimiter.unavailable = true;
    expect(await codeOf(h.create({ principal: principal({ entitled: readable(false) }) }))).to.equal('rate_limit_unavailable');
  });

  it('entitlement (4) before idempotency (5) and quota (6)', async () => {
    const h = new UseCaseHarness();
    h.idempotency.unavailable = true;
    const facts = principal({ entitled: unreadable, planUsage: exhausted });
    expect(await codeOf(h.create({ principal: facts, idempotencyKey: 'k' }))).to.equal('entitlement_check_unavailable');
  });

  it('idempotency (5) before quota (6)', async () => {
    const h = new UseCaseHarness();
    await h.create({ idempotencyKey: 'k' });
    const code = await codeOf(h.create({ principal: principal({ planUsage: exhausted }), request: IMAGE_REQUEST, idempotencyKey: 'k' }));
    expect(code).to.equal('idempotency_conflict');
  });

  it('quota (6) before any image fetch (7): a rejected request is no downloader', async () => {
    const h = new UseCaseHarness();
    h.imageFetcher = new FakeImageFetcher({ failures: { 'https://img.example/window.png': { kind: 'rejected' } } });
    expect(await codeOf(h.create({ principal: principal({ planUsage: exhausted }), request: IMAGE_REQUEST }))).to.equal('quota_exceeded');
    expect(h.imageFetcher.calls).to.deep.equal([]);
  });

  it('quota_exceeded carries the details of spec 2.6 and no Retry-After (R31)', async () => {
    const h = new UseCaseHarness();
    let error: unknown;
    await h.create({ principal: principal({ planUsage: exhausted }) }).catch((caught: unknown) => (error = caught));
    expect(error).to.deep.include({
      code: 'quota_exceeded',
      details: { operation: 'evidence_report', limit: 3, used: 3, remaining: 0, requestedUnits: 1, resetAt: '2026-12-01T00:00:00.000Z' },
      headers: {},
    });
  });
});
