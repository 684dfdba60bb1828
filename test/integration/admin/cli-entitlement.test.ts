// `admin entitlement grant|revoke` (operator-interface.md): the row of product
// `evidence_reports` per customer, active or not (rulings R12, R19).
import { expect } from 'chai';
import { setEntitlement } from '../../../src/admin/entitlements.ts';
import { ProductEntitlement } from '../../../src/plans/product-entitlement.entity.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { adminJson } from '../../support/run-admin.ts';

async function entitlementRows(customerId: string): Promise<[string, boolean][]> {
  const rows = await (await testEm()).find(ProductEntitlement, { customer: customerId });
  return rows.map((row) => [row.product, row.active]);
}

describe('admin entitlement (R12, R19)', () => {
  it('grant creates the evidence_reports entitlement: {"customerId","entitled":true} (R19)', async () => {
    const { customerId } = await createCustomerFixture({ noEntitlement: true });
    expect(await adminJson('entitlement', 'grant', '--customer', customerId)).to.deep.equal({ customerId, entitled: true });
    expect(await entitlementRows(customerId)).to.deep.equal([['evidence_reports', true]]);
  });

  it('revoke keeps the row, inactive: {"customerId","entitled":false}, and grant reactivates it (R19, R21)', async () => {
    const { customerId } = await createCustomerFixture();
    expect(await adminJson('entitlement', 'revoke', '--customer', customerId)).to.deep.equal({ customerId, entitled: false });
    expect(await entitlementRows(customerId)).to.deep.equal([['evidence_reports', false]]);
    await adminJson('entitlement', 'grant', '--customer', customerId);
    expect(await entitlementRows(customerId)).to.deep.equal([['evidence_reports', true]]);
  });

  // Serialized on the customer's row, as subscriptions are: no raw unique violation.
  it('concurrent entitlement grants of one customer both succeed and leave one row (R19)', async () => {
    for (let round = 0; round < 10; round += 1) {
      const { customerId } = await createCustomerFixture({ noEntitlement: true });
      const results = await Promise.allSettled([true, true].map(async (entitled) => setEntitlement(await testEm(), { customerId, entitled })));
      expect(results.map((r) => r.status)).to.deep.equal(['fulfilled', 'fulfilled']);
      expect(await (await testEm()).count(ProductEntitlement, { customer: customerId, active: true })).to.equal(1);
    }
  });
});
