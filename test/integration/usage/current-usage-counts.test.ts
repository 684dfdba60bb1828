// GET /v1/usage/current (spec 2.7 and 4.2, rulings R17, R18): `used` is the sum of the units
// recorded for the customer in the current UTC month, 0 when there are none (not 404); `limit`
// comes from the active plan; `remaining` is max(limit - used, 0).
import { expect } from 'chai';
import type { components } from '../../../generated/openapi.d.ts';
import { createPlan } from '../../../src/admin/plans.ts';
import { subscribe } from '../../../src/admin/subscriptions.ts';
import { FixedClock } from '../../../src/shared/clock.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { insertUsageRecord } from '../../support/footprint.ts';
import { client } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';

type CurrentUsage = components['schemas']['CurrentUsage'];

const NOW = '2026-05-15T12:00:00.000Z';
const REPORT = { context: 'field_inspection', evidence: { text: 'Rust on the handrail of the north stairwell.' } };

describe('GET /v1/usage/current: used, limit and remaining (spec 2.7, R17, R18)', () => {
  const clock = new FixedClock(NOW);
  const app = useService({}, { clock });
  beforeEach(() => clock.set(NOW));

  async function usageOf(apiKey: string): Promise<CurrentUsage> {
    const response = await client(app.service.url, apiKey).currentUsage<CurrentUsage>();
    expect(response.status, JSON.stringify(response.body)).to.equal(200);
    return response.body;
  }

  it('a customer without usage gets 200 with used 0, not 404 (spec 4.2)', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 25 });
    expect(await usageOf(customer.apiKey)).to.deep.equal({
      period: { startsAt: '2026-05-01T00:00:00.000Z', endsAt: '2026-06-01T00:00:00.000Z' },
      usage: [{ operation: 'evidence_report', used: 0, limit: 25, remaining: 25 }],
    });
  });

  it('used counts the units of completed reports, one each (spec 1, R17)', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 10 });
    const api = client(app.service.url, customer.apiKey);
    for (let i = 0; i < 3; i += 1) expect((await api.createReport(REPORT)).status).to.equal(201);
    expect((await usageOf(customer.apiKey)).usage).to.deep.equal([{ operation: 'evidence_report', used: 3, limit: 10, remaining: 7 }]);
  });

  it('used sums units of the current UTC month only, start inclusive, end exclusive (R17)', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 100 });
    expect((await client(app.service.url, customer.apiKey).createReport(REPORT)).status).to.equal(201);
    await insertUsageRecord(customer.customerId, '2026-05-01T00:00:00.000Z', 2); // first instant of May
    await insertUsageRecord(customer.customerId, '2026-05-31T23:59:59.999Z', 4); // last instant of May
    await insertUsageRecord(customer.customerId, '2026-04-30T23:59:59.999Z', 8); // previous month
    await insertUsageRecord(customer.customerId, '2026-06-01T00:00:00.000Z', 16); // next month
    await insertUsageRecord(customer.customerId, '2025-05-15T12:00:00.000Z', 32); // same month, last year
    expect((await usageOf(customer.apiKey)).usage[0]).to.include({ used: 7, limit: 100, remaining: 93 });
  });

  it('limit is the active plan monthly limit, and a plan change shows on the next request (R18, R21)', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 5 });
    await insertUsageRecord(customer.customerId, '2026-05-02T00:00:00.000Z', 2);
    expect((await usageOf(customer.apiKey)).usage[0]).to.include({ used: 2, limit: 5, remaining: 3 });
    const em = await testEm();
    const { planCode } = await createPlan(em, { code: `usage-counts-${customer.customerId}`, monthlyLimit: 40, usageVisible: true });
    await subscribe(em, { customerId: customer.customerId, planCode });
    expect((await usageOf(customer.apiKey)).usage[0]).to.include({ used: 2, limit: 40, remaining: 38 });
  });

  it('remaining is 0, never negative, when used reaches or passes the limit (spec 2.7)', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 3 });
    await insertUsageRecord(customer.customerId, '2026-05-03T00:00:00.000Z', 3);
    expect((await usageOf(customer.apiKey)).usage[0]).to.include({ used: 3, limit: 3, remaining: 0 });
    // More than the limit: possible after a limit cut or the concurrent last unit (R17).
    await insertUsageRecord(customer.customerId, '2026-05-04T00:00:00.000Z', 5);
    expect((await usageOf(customer.apiKey)).usage[0]).to.include({ used: 8, limit: 3, remaining: 0 });
  });

  it('a plan with limit 0 reads used 0, limit 0, remaining 0 (R18)', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 0 });
    expect((await usageOf(customer.apiKey)).usage).to.deep.equal([{ operation: 'evidence_report', used: 0, limit: 0, remaining: 0 }]);
  });

  it('usage is per customer: another customer of the same plan size sees only its own units (R17)', async () => {
    const [a, b] = [await createCustomerFixture({ monthlyLimit: 9 }), await createCustomerFixture({ monthlyLimit: 9 })];
    await insertUsageRecord(a.customerId, '2026-05-05T00:00:00.000Z', 4);
    expect((await usageOf(a.apiKey)).usage[0]?.used).to.equal(4);
    expect((await usageOf(b.apiKey)).usage[0]?.used).to.equal(0);
  });
});
