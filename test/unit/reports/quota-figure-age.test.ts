// Step 6 judges the quota "from recorded usage before execution" (spec section 8). Step 1 read the
// month's usage when the headers arrived (R5); the body may come much later. A figure older than
// QUOTA_FIGURE_MAX_AGE_MS is read again, in step 1's month (R17); a fresh one costs no read.
import { expect } from 'chai';
import { QUOTA_FIGURE_MAX_AGE_MS } from '../../../src/reports/stages/check-quota.ts';
import { codeOf, principal, readable, UseCaseHarness } from '../../support/unit/use-case.ts';

const LAST_UNIT_LEFT = { limit: 5, used: 4, usageVisible: true };
const NONE_LEFT = { limit: 5, used: 5, usageVisible: true };

function harness(stepOneToSixMs: number): UseCaseHarness {
  const h = new UseCaseHarness();
  h.beforeStep = (label) => {
    if (label === '6_quota') h.clock.advance(stepOneToSixMs);
  };
  return h;
}

describe('step 6: how old step 1\'s usage figure may be (spec section 8, R17)', () => {
  it(`a figure at most ${QUOTA_FIGURE_MAX_AGE_MS} ms old is judged as read: no second read`, async () => {
    const h = harness(QUOTA_FIGURE_MAX_AGE_MS);
    const outcome = await h.create({ principal: principal({ planUsage: readable(LAST_UNIT_LEFT) }) });
    expect(outcome.replayed).to.equal(false);
    expect(h.usageReads).to.have.length(0);
  });

  it('an older figure is read again, and the last unit that another request took meanwhile is gone: 429 quota_exceeded with the usage read now', async () => {
    const h = harness(QUOTA_FIGURE_MAX_AGE_MS + 1);
    h.usageNow = NONE_LEFT;
    const error = await h.create({ principal: principal({ planUsage: readable(LAST_UNIT_LEFT) }) }).then(
      () => undefined,
      (e: unknown) => e as { code: string; details: { used: number; remaining: number } },
    );
    expect(error?.code).to.equal('quota_exceeded');
    expect(error?.details).to.include({ used: 5, remaining: 0 });
    expect(h.usageReads).to.have.length(1);
    expect(h.reports.records).to.deep.equal([]);
  });

  it('an older figure that said "exhausted" is read again too: a bigger plan bought meanwhile serves the request (R21)', async () => {
    const h = harness(5_000);
    h.usageNow = { limit: 10, used: 5, usageVisible: true };
    const outcome = await h.create({ principal: principal({ planUsage: readable(NONE_LEFT) }) });
    expect(outcome.body.usage).to.deep.equal({ operation: 'evidence_report', units: 1 });
  });

  it('the second read is for the month of step 1 and the mode of the key (R17, R53)', async () => {
    const h = harness(QUOTA_FIGURE_MAX_AGE_MS + 1);
    h.usageNow = LAST_UNIT_LEFT;
    // Step 1 at the last millisecond of November; step 6 in December.
    h.clock.set('2026-11-30T23:59:59.999Z');
    await h.create({ principal: principal({ mode: 'test', planUsage: readable(LAST_UNIT_LEFT) }) });
    expect(h.usageReads).to.have.length(1);
    const [customerId, period, mode] = h.usageReads[0] ?? [];
    expect(customerId).to.equal('customer-1');
    expect(period?.startsAt.toISOString()).to.equal('2026-11-01T00:00:00.000Z');
    expect(mode).to.equal('test');
  });

  it('a second read that fails is 503 quota_check_unavailable: no unit, no report', async () => {
    const h = harness(QUOTA_FIGURE_MAX_AGE_MS + 1);
    h.usageNow = 'unavailable';
    expect(await codeOf(h.create({ principal: principal({ planUsage: readable(LAST_UNIT_LEFT) }) }))).to.equal('quota_check_unavailable');
    expect(h.reports.records).to.deep.equal([]);
  });
});
