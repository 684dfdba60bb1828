// Unit tier: idempotency in the use case. R14: a failure after the claim gives the key
// back, so the same key then makes the one report. R13: a replay passes steps 1 to 4, then
// returns the original 201 body, skipping steps 6 to 10, even with the quota exhausted.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { codeOf, IMAGE_REQUEST, principal, readable, TEXT_REQUEST, UseCaseHarness } from '../../support/unit/use-case.ts';

describe('create report, unit tier: idempotent retries (R13, R14, R30)', () => {
  it('a failure after the claim releases the key, and a retry with it makes the one report (R14)', async () => {
    const h = new UseCaseHarness();
    h.generator = new FakeReportGenerator({ error: { kind: 'unavailable' } });
    expect(await codeOf(h.create({ idempotencyKey: 'retry-me' }))).to.equal('report_generation_unavailable');
    expect(h.idempotency.released.map((claim) => claim.key)).to.deep.equal(['retry-me']);
    h.generator = new FakeReportGenerator();
    const retry = await h.create({ idempotencyKey: 'retry-me' });
    expect(retry.replayed).to.equal(false);
    expect(h.reports.records).to.have.length(1);
  });

  it('a replay skips steps 6 to 10: no quota check, no fetch, no generation, no write; the same body (R13)', async () => {
    const h = new UseCaseHarness();
    const first = await h.create({ request: IMAGE_REQUEST, idempotencyKey: 'same' });
    h.steps.length = 0;
    // The quota is exhausted by now: a replay requests no unit, so it is not blocked (R13).
    const exhausted = principal({ planUsage: readable({ limit: 1, used: 1, usageVisible: true }) });
    const replay = await h.create({ principal: exhausted, request: IMAGE_REQUEST, idempotencyKey: 'same' });
    expect(replay.replayed).to.equal(true);
    expect(replay.body).to.deep.equal(first.body);
    expect(h.steps).to.deep.equal(['2_validate', '3_rate_limit', '4_entitlement', '5_idempotency']);
    expect(h.imageFetcher.calls).to.have.length(1);
    expect(h.generator.callCount).to.equal(1);
    expect(h.reports.records).to.have.length(1);
  });

  it('a replay still passes the rate limit and the entitlement (R13, R21)', async () => {
    const h = new UseCaseHarness();
    await h.create({ idempotencyKey: 'same' });
    expect(await codeOf(h.create({ principal: principal({ entitled: readable(false) }), idempotencyKey: 'same' }))).to.equal('product_not_entitled');
  });

  it('the same key with another request is a conflict, whatever the original state (R30)', async () => {
    const h = new UseCaseHarness();
    await h.create({ request: TEXT_REQUEST, idempotencyKey: 'same' });
    expect(await codeOf(h.create({ request: IMAGE_REQUEST, idempotencyKey: 'same' }))).to.equal('idempotency_conflict');
  });

  it('a key in progress is 409 idempotency_in_progress while the original runs', async () => {
    const h = new UseCaseHarness();
    h.generator = new FakeReportGenerator({ delayMs: 50 });
    const original = h.create({ idempotencyKey: 'busy' });
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await codeOf(h.create({ idempotencyKey: 'busy' }))).to.equal('idempotency_in_progress');
    expect((await original).replayed).to.equal(false);
  });
});
