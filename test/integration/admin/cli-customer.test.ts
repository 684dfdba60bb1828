// `admin customer create|deactivate|activate` (operator-interface.md). An inactive customer
// has only invalid keys (R19); the status is read on every request (R21).
import { expect } from 'chai';
import { Customer } from '../../../src/accounts/customer.entity.ts';
import { countCustomerRows, testEm } from '../../support/database.ts';
import { admin, adminJson, keysOf } from '../../support/run-admin.ts';

describe('admin customer (operator-interface.md)', () => {
  it('customer create makes a customer and nothing else: {"customerId"}', async () => {
    const out = await adminJson<{ customerId: string }>('customer', 'create', '--name', 'Just a customer');
    expect(keysOf(out)).to.deep.equal(['customerId']);
    const customer = await (await testEm()).findOneOrFail(Customer, out.customerId);
    expect([customer.name, customer.status]).to.deep.equal(['Just a customer', 'active']);
    const counts = await countCustomerRows(out.customerId);
    expect(counts).to.deep.include({ customer: 1, api_key: 0, subscription: 0, product_entitlement: 0 });
  });

  it('customer deactivate and activate set the status: {"customerId","status"} (R19, R21)', async () => {
    const { customerId } = await adminJson<{ customerId: string }>('customer', 'create', '--name', 'Toggled');
    expect(await adminJson('customer', 'deactivate', '--customer', customerId)).to.deep.equal({ customerId, status: 'inactive' });
    expect((await (await testEm()).findOneOrFail(Customer, customerId)).status).to.equal('inactive');
    expect(await adminJson('customer', 'activate', '--customer', customerId)).to.deep.equal({ customerId, status: 'active' });
    expect((await (await testEm()).findOneOrFail(Customer, customerId)).status).to.equal('active');
  });

  it('without --json prints one short human-readable line, not JSON', async () => {
    const result = await admin('customer', 'create', '--name', 'Human output');
    expect(result.code).to.equal(0);
    expect(result.stdout).to.match(/^customer [0-9a-f-]{36} created\n$/);
  });
});
