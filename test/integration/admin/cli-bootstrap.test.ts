// `admin bootstrap` (operator-interface.md): customer + plan subscription (default limit
// 1000) + entitlement + one key, JSON {"customerId","apiKeyId","apiKey"}. Only the key's
// hash and prefix are stored (R26); the plan's usage visibility follows --usage-hidden (R18).
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { ApiKey } from '../../../src/accounts/api-key.entity.ts';
import { Customer } from '../../../src/accounts/customer.entity.ts';
import { ProductEntitlement } from '../../../src/plans/product-entitlement.entity.ts';
import { PlanRepository } from '../../../src/plans/plan-repository.ts';
import { Subscription } from '../../../src/plans/subscription.entity.ts';
import { countCustomerRows, testEm } from '../../support/database.ts';
import { adminJson, keysOf } from '../../support/run-admin.ts';

interface Bootstrapped {
  customerId: string;
  apiKeyId: string;
  apiKey: string;
}

describe('admin bootstrap (operator-interface.md)', () => {
  it('creates an active customer, a 1000/month visible plan, an active subscription, the entitlement and one key (R18, R26)', async () => {
    const out = await adminJson<Bootstrapped>('bootstrap', '--name', 'Bootstrap Ltd');
    expect(keysOf(out)).to.deep.equal(['apiKey', 'apiKeyId', 'customerId']);
    expect(out.apiKey).to.match(/^ers_live_[0-9A-Za-z]{40}$/);
    const em = await testEm();
    const customer = await em.findOneOrFail(Customer, out.customerId);
    expect([customer.name, customer.status]).to.deep.equal(['Bootstrap Ltd', 'active']);
    const plan = await new PlanRepository(em).activePlan(out.customerId);
    expect(plan?.code).to.match(/^bootstrap-[0-9a-f]{8}$/);
    expect([plan?.monthlyLimit, plan?.usageVisible]).to.deep.equal([1000, true]);
    const entitlement = await em.findOneOrFail(ProductEntitlement, { customer: out.customerId, product: 'evidence_reports' });
    expect(entitlement.active).to.equal(true);
    const key = await em.findOneOrFail(ApiKey, out.apiKeyId);
    expect(key.customer.id).to.equal(out.customerId);
    expect(key.status).to.equal('active');
    expect(key.keyHash).to.equal(createHash('sha256').update(out.apiKey).digest('hex'));
    expect(key.prefix).to.equal(out.apiKey.slice(0, 12));
    expect(await countCustomerRows(out.customerId)).to.include({ customer: 1, api_key: 1, subscription: 1, product_entitlement: 1 });
  });

  it('never stores the key itself, only its hash and prefix (R26)', async () => {
    const out = await adminJson<Bootstrapped>('bootstrap', '--name', 'No plaintext');
    const rows = await (await testEm()).execute('select * from api_key where id = ?', [out.apiKeyId]);
    expect(JSON.stringify(rows)).not.to.include(out.apiKey);
  });

  it('--monthly-limit and --usage-hidden shape the plan (R18)', async () => {
    const out = await adminJson<Bootstrapped>('bootstrap', '--name', 'Hidden', '--monthly-limit', '5', '--usage-hidden');
    const plan = await new PlanRepository(await testEm()).activePlan(out.customerId);
    expect([plan?.monthlyLimit, plan?.usageVisible]).to.deep.equal([5, false]);
  });

  it('--monthly-limit 0 is a valid plan that allows nothing (spec 2.6: limit minimum 0)', async () => {
    const out = await adminJson<Bootstrapped>('bootstrap', '--name', 'Zero', '--monthly-limit', '0');
    expect((await new PlanRepository(await testEm()).activePlan(out.customerId))?.monthlyLimit).to.equal(0);
  });

  it('--no-plan leaves the customer without a subscription and --no-entitlement without an entitlement (R18, R19)', async () => {
    const out = await adminJson<Bootstrapped>('bootstrap', '--name', 'Bare', '--no-plan', '--no-entitlement');
    const em = await testEm();
    expect(await em.count(Subscription, { customer: out.customerId })).to.equal(0);
    expect(await em.count(ProductEntitlement, { customer: out.customerId })).to.equal(0);
    expect(await em.count(ApiKey, { customer: out.customerId })).to.equal(1);
  });
});
