// `admin usage show --customer ID [--month YYYY-MM]` (operator-interface.md): the month's
// total from the usage counter (R17), the limit of the active plan (R18, 0 without one) and
// max(limit - used, 0), in the shape of spec 2.7.
import { expect } from 'chai';
import { UsageRecord } from '../../../src/usage/usage-record.entity.ts';
import { monthPeriod } from '../../../src/usage/period.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { adminJson, keysOf } from '../../support/run-admin.ts';

async function recordUnits(customerId: string, occurredAt: Date, units: number): Promise<void> {
  const em = await testEm();
  em.create(UsageRecord, { customer: customerId, operation: 'evidence_report', units, occurredAt });
  await em.flush();
}

describe('admin usage show (spec 2.7, R17, R18)', () => {
  it('shows the current UTC month by default, in exactly the documented shape (spec 2.7, R27)', async () => {
    const { customerId } = await createCustomerFixture({ monthlyLimit: 10 });
    await recordUnits(customerId, new Date(), 3);
    const out = await adminJson('usage', 'show', '--customer', customerId);
    const period = monthPeriod(new Date());
    expect(keysOf(out)).to.deep.equal(['customerId', 'period', 'usage']);
    expect(out).to.deep.equal({
      customerId,
      period: { startsAt: period.startsAt.toISOString(), endsAt: period.endsAt.toISOString() },
      usage: [{ operation: 'evidence_report', used: 3, limit: 10, remaining: 7 }],
    });
  });

  it('--month selects a UTC month: 2026-02 counts February only (spec section 8)', async () => {
    const { customerId } = await createCustomerFixture({ monthlyLimit: 10 });
    await recordUnits(customerId, new Date('2026-01-31T23:59:59.999Z'), 1);
    await recordUnits(customerId, new Date('2026-02-01T00:00:00.000Z'), 4);
    await recordUnits(customerId, new Date('2026-03-01T00:00:00.000Z'), 2);
    const out = await adminJson('usage', 'show', '--customer', customerId, '--month', '2026-02');
    expect(out).to.deep.equal({
      customerId,
      period: { startsAt: '2026-02-01T00:00:00.000Z', endsAt: '2026-03-01T00:00:00.000Z' },
      usage: [{ operation: 'evidence_report', used: 4, limit: 10, remaining: 6 }],
    });
  });

  it('remaining never goes below 0, and limit is 0 without an active plan (spec 2.7, R18)', async () => {
    const { customerId } = await createCustomerFixture({ noPlan: true });
    await recordUnits(customerId, new Date('2026-04-10T00:00:00Z'), 2);
    const out = await adminJson<{ usage: unknown[] }>('usage', 'show', '--customer', customerId, '--month', '2026-04');
    expect(out.usage).to.deep.equal([{ operation: 'evidence_report', used: 2, limit: 0, remaining: 0 }]);
  });
});
