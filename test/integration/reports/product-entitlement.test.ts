// Step 4, the product entitlement (spec section 5 items 8 and 9, rulings R19, R21): a valid key
// does not grant the product; without an active entitlement the answer is 403
// product_not_entitled, decided on every request, and nothing runs after it.
import { expect } from 'chai';
import { setEntitlement } from '../../../src/admin/entitlements.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, caller, customerTotals } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const withImage = { context: 'delivery_confirmation', evidence: { images: [{ url: 'https://img.example/parcel.png' }] } };

describe('POST /v1/evidence/reports: 403 product_not_entitled (spec section 5, R19, R21)', () => {
  const generator = new FakeReportGenerator();
  const imageFetcher = new FakeImageFetcher();

  const app = useService({}, { generator, imageFetcher });

  it('a customer without an entitlement row is 403 product_not_entitled and nothing runs after step 4', async () => {
    const client = await app.newCaller({ noEntitlement: true });
    const calls = generator.callCount;
    const res = await client.create(withImage, { headers: { 'idempotency-key': 'not-entitled' } });
    expectApiError(res, 'product_not_entitled');
    expect(res.text).not.to.match(/entitlement_id|subscription|billing/i);
    expect(generator.callCount).to.equal(calls);
    expect(imageFetcher.calls).to.deep.equal([]);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 0, units: 0, claims: 0 });
  });

  it('a revoked entitlement takes effect on the next request, a granted one too (R21: no caching)', async () => {
    const customer = await createCustomerFixture();
    const client = caller(app.service.url, customer, app.ledger);
    expect((await client.create(bodyNumber(1))).status).to.equal(201);
    await setEntitlement(await testEm(), { customerId: customer.customerId, entitled: false });
    expectApiError(await client.create(bodyNumber(2)), 'product_not_entitled');
    await setEntitlement(await testEm(), { customerId: customer.customerId, entitled: true });
    expect((await client.create(bodyNumber(3))).status).to.equal(201);
  });

  it('a customer not entitled can still read its usage (R18: reading usage does not need the entitlement)', async () => {
    const client = await app.newCaller({ noEntitlement: true });
    expect((await client.usage()).status).to.equal(200);
  });
});
