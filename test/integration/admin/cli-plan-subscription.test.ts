// `admin plan create`, `subscribe`, `unsubscribe` (operator-interface.md, ruling R18): the
// active plan is the one active subscription; subscribing ends the previous one.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { subscribe } from '../../../src/admin/subscriptions.ts';
import { Plan } from '../../../src/plans/plan.entity.ts';
import { PlanRepository } from '../../../src/plans/plan-repository.ts';
import { Subscription } from '../../../src/plans/subscription.entity.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { adminJson, keysOf } from '../../support/run-admin.ts';

const planCode = (): string => `test-plan-${randomBytes(4).toString('hex')}`;

describe('admin plan and subscription (R18)', () => {
  it('plan create adds a catalogue plan, usage visible unless --usage-hidden: {"planCode"} (R18)', async () => {
    const [visible, hidden] = [planCode(), planCode()];
    expect(await adminJson('plan', 'create', '--code', visible, '--monthly-limit', '250')).to.deep.equal({ planCode: visible });
    expect(keysOf(await adminJson('plan', 'create', '--code', hidden, '--monthly-limit', '0', '--usage-hidden'))).to.deep.equal([
      'planCode',
    ]);
    const em = await testEm();
    const a = await em.findOneOrFail(Plan, visible);
    const b = await em.findOneOrFail(Plan, hidden);
    expect([a.monthlyLimit, a.usageVisible, b.monthlyLimit, b.usageVisible]).to.deep.equal([250, true, 0, false]);
  });

  it('subscribe makes the plan active and ends the previous subscription: {"customerId","planCode"} (R18)', async () => {
    const { customerId, planCode: first } = await createCustomerFixture();
    const next = planCode();
    await adminJson('plan', 'create', '--code', next, '--monthly-limit', '7');
    expect(await adminJson('subscribe', '--customer', customerId, '--plan', next)).to.deep.equal({ customerId, planCode: next });
    const em = await testEm();
    expect((await new PlanRepository(em).activePlan(customerId))?.code).to.equal(next);
    const history = await em.find(Subscription, { customer: customerId }, { orderBy: { startedAt: 'asc' } });
    expect(history.map((s) => [s.plan.unwrap().code, s.status])).to.deep.equal([
      [first, 'ended'],
      [next, 'active'],
    ]);
    expect(history[0]?.endedAt).to.be.instanceOf(Date);
  });

  it('subscribing to the plan already active changes nothing (R18)', async () => {
    const { customerId, planCode: current } = await createCustomerFixture();
    await adminJson('subscribe', '--customer', customerId, '--plan', current as string);
    expect(await (await testEm()).count(Subscription, { customer: customerId })).to.equal(1);
  });

  it('unsubscribe leaves no active plan and keeps the history: {"customerId"} (R18)', async () => {
    const { customerId } = await createCustomerFixture();
    expect(await adminJson('unsubscribe', '--customer', customerId)).to.deep.equal({ customerId });
    const em = await testEm();
    expect(await new PlanRepository(em).activePlan(customerId)).to.equal(null);
    expect(await em.count(Subscription, { customer: customerId, status: 'ended' })).to.equal(1);
  });

  // Two operators (or a retried deployment script) changing one customer at once: the changes
  // are serialized on the customer's row, so both succeed and one active plan remains, instead
  // of the later insert meeting the one-active-subscription index as a raw unique violation.
  it('concurrent subscribes of one customer both succeed and leave one active subscription (R18)', async () => {
    const plans = [planCode(), planCode()];
    for (const code of plans) await adminJson('plan', 'create', '--code', code, '--monthly-limit', '9');
    for (let round = 0; round < 10; round += 1) {
      const { customerId } = await createCustomerFixture();
      await adminJson('unsubscribe', '--customer', customerId);
      const results = await Promise.allSettled(plans.map(async (code) => subscribe(await testEm(), { customerId, planCode: code })));
      expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled']);
      const em = await testEm();
      expect(await em.count(Subscription, { customer: customerId, status: 'active' })).to.equal(1);
    }
  });

});
