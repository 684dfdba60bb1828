// `admin entitlement grant|revoke` (operator-interface.md): the row of product
// `evidence_reports` per customer, active or not (rulings R12, R19).
import { expect } from 'chai';
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
});
