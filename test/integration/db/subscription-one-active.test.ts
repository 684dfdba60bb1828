// Ruling R18: a customer's active plan is its one active subscription. The partial unique
// index subscription_one_active_per_customer makes a second active row impossible, while
// any number of ended subscriptions remain as history.
import { expect } from 'chai';
import { Subscription } from '../../../src/plans/subscription.entity.ts';
import { isUniqueViolation } from '../../../src/db/errors.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';

describe('one active subscription per customer (R18)', () => {
  it('a second active subscription of the same customer violates the partial unique index (R18)', async () => {
    const { customerId, planCode } = await createCustomerFixture();
    const em = await testEm();
    let error: unknown;
    try {
      await em.transactional(async (tx) => {
        tx.create(Subscription, { customer: customerId, plan: planCode as string });
      });
    } catch (e) {
      error = e;
    }
    expect(isUniqueViolation(error, 'subscription_one_active_per_customer')).to.equal(true);
    expect(await (await testEm()).count(Subscription, { customer: customerId })).to.equal(1);
  });

  it('ended subscriptions do not count: history may hold many (R18)', async () => {
    const { customerId, planCode } = await createCustomerFixture();
    const em = await testEm();
    await em.transactional(async (tx) => {
      for (let i = 0; i < 3; i++) {
        tx.create(Subscription, { customer: customerId, plan: planCode as string, status: 'ended', endedAt: new Date() });
      }
    });
    expect(await (await testEm()).count(Subscription, { customer: customerId })).to.equal(4);
  });

  it('other customers are independent: each may have one active subscription (R18)', async () => {
    const a = await createCustomerFixture();
    const b = await createCustomerFixture();
    const em = await testEm();
    expect(await em.count(Subscription, { customer: { $in: [a.customerId, b.customerId] }, status: 'active' })).to.equal(2);
  });
});
