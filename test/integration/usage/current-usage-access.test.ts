// Ruling R18: current usage needs an active plan whose usage is visible; otherwise 403
// current_usage_access_denied (the same answer for both reasons). It does not need the product
// entitlement. Changes apply on the next request (R21).
import { expect } from 'chai';
import { setEntitlement } from '../../../src/admin/entitlements.ts';
import { createPlan } from '../../../src/admin/plans.ts';
import { subscribe, unsubscribe } from '../../../src/admin/subscriptions.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { expectApiError } from '../../support/expect-api-error.ts';
import { client } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

describe('GET /v1/usage/current: who may read it (R18)', () => {
  const app = useService();

  const usage = (apiKey: string) => client(app.service.url, apiKey).currentUsage();

  it('a customer without an active subscription gets 403 current_usage_access_denied (R18)', async () => {
    const customer = await createCustomerFixture({ noPlan: true });
    const response = await usage(customer.apiKey);
    expectApiError(response, 'current_usage_access_denied');
    expect(response.body).to.not.have.nested.property('error.details');
  });

  it('a customer whose plan hides usage gets 403 current_usage_access_denied (R18)', async () => {
    const customer = await createCustomerFixture({ usageHidden: true });
    expectApiError(await usage(customer.apiKey), 'current_usage_access_denied');
  });

  it('ending the subscription gives 403 on the next request (R18, R21)', async () => {
    const customer = await createCustomerFixture();
    expect((await usage(customer.apiKey)).status).to.equal(200);
    await unsubscribe(await testEm(), { customerId: customer.customerId });
    expectApiError(await usage(customer.apiKey), 'current_usage_access_denied');
  });

  it('moving to a plan that hides usage gives 403, and back to a visible one 200, on the next request (R18, R21)', async () => {
    const customer = await createCustomerFixture();
    const em = await testEm();
    const hidden = await createPlan(em, { code: `hidden-${customer.customerId}`, monthlyLimit: 10, usageVisible: false });
    const visible = await createPlan(em, { code: `visible-${customer.customerId}`, monthlyLimit: 10, usageVisible: true });
    await subscribe(em, { customerId: customer.customerId, planCode: hidden.planCode });
    expectApiError(await usage(customer.apiKey), 'current_usage_access_denied');
    await subscribe(em, { customerId: customer.customerId, planCode: visible.planCode });
    expect((await usage(customer.apiKey)).status).to.equal(200);
  });

  it('reading usage does not need the product entitlement (R18)', async () => {
    const never = await createCustomerFixture({ noEntitlement: true });
    expect((await usage(never.apiKey)).status).to.equal(200);
    const revoked = await createCustomerFixture();
    await setEntitlement(await testEm(), { customerId: revoked.customerId, entitled: false });
    expect((await usage(revoked.apiKey)).status).to.equal(200);
  });
});
