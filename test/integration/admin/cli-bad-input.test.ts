// operator-interface.md: bad input (unknown customer, key or plan, bad number, missing or
// unknown option, unknown command) exits 1 with ONE line on stderr, prints nothing on
// stdout, and changes nothing.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { Plan } from '../../../src/plans/plan.entity.ts';
import { countAllRows, countCustomerRows, createCustomerFixture, testEm } from '../../support/database.ts';
import { admin } from '../../support/run-admin.ts';

async function expectRejected(args: string[], message: RegExp): Promise<void> {
  const result = await admin(...args, '--json');
  expect(result.code, result.stderr).to.equal(1);
  expect(result.stdout).to.equal('');
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).to.have.length(1);
  expect(lines[0]).to.match(message);
}

describe('admin bad input exits 1 with one line and changes nothing (operator-interface.md)', () => {
  it('unknown commands, unknown options and missing options, before the database is touched', async () => {
    const before = await countAllRows();
    await expectRejected([], /^Unknown command/);
    await expectRejected(['customer', 'delete', '--customer', randomUUID()], /^Unknown command "customer delete"/);
    await expectRejected(['customer', 'create'], /^Missing option --name/);
    await expectRejected(['customer', 'create', '--name', 'x', '--colour', 'red'], /--colour/);
    await expectRejected(['customer', 'create', '--name'], /--name/);
    await expectRejected(['customer', 'create', '--name', 'x', 'stray'], /stray/);
    await expectRejected(['plan', 'create', '--code', 'p'], /^Missing option --monthly-limit/);
    expect(await countAllRows()).to.deep.equal(before);
  });

  it('a key pasted where a key id, customer id or mode belongs is never repeated in the message (R26)', async () => {
    const customer = await createCustomerFixture();
    for (const args of [
      ['key', 'revoke', '--key', customer.apiKey],
      ['key', 'list', '--customer', customer.apiKey],
      ['key', 'create', '--customer', customer.customerId, '--mode', customer.apiKey],
      [customer.apiKey, 'list'],
    ]) {
      const result = await admin(...args);
      expect(result.code, result.stderr).to.equal(1);
      expect(result.stderr).to.include('ers_live_[redacted]');
      expect(result.stderr).not.to.include(customer.apiKey.slice('ers_live_'.length));
    }
  });

  it('bad numbers and months: not whole, negative, too large, malformed month', async () => {
    const before = await countAllRows();
    const code = `bad-${randomUUID()}`;
    await expectRejected(['plan', 'create', '--code', code, '--monthly-limit', '12x'], /--monthly-limit/);
    // The option's own message, not parseArgs' "argument is ambiguous".
    await expectRejected(['plan', 'create', '--code', code, '--monthly-limit', '-1'], /^Invalid --monthly-limit: expected a whole number, got "-1"/);
    await expectRejected(['plan', 'create', '--code', code, '--monthly-limit', '1.5'], /--monthly-limit/);
    await expectRejected(['plan', 'create', '--code', code, '--monthly-limit', '9999999999'], /monthly limit/);
    // A whole number too large is told its range, not that it is no whole number.
    for (const large of ['99999999999', '1'.repeat(30)]) {
      await expectRejected(['plan', 'create', '--code', code, '--monthly-limit', large], /expected an integer from 0 to 2147483647$/);
    }
    await expectRejected(['bootstrap', '--name', 'x', '--monthly-limit', 'lots'], /--monthly-limit/);
    await expectRejected(['bootstrap', '--name', 'x', '--no-plan', '--monthly-limit', '3'], /--no-plan/);
    await expectRejected(['bootstrap', '--name', '   '], /customer name/);
    await expectRejected(['plan', 'create', '--code', 'has space', '--monthly-limit', '1'], /plan code/);
    await expectRejected(['usage', 'show', '--customer', randomUUID(), '--month', '2026-13'], /--month/);
    // Date.UTC reads 0099 as 1999: refused, not shown as another month.
    await expectRejected(['usage', 'show', '--customer', randomUUID(), '--month', '0099-05'], /^Invalid --month/);
    // Each message names the option it is about.
    await expectRejected(['bootstrap', '--name', '   '], /^Invalid --name \(customer name\)/);
    await expectRejected(['plan', 'create', '--code', 'has space', '--monthly-limit', '1'], /^Invalid --code \(plan code\)/);
    await expectRejected(['plan', 'create', '--code', code, '--monthly-limit', '4294967296'], /^Invalid --monthly-limit/);
    expect(await countAllRows()).to.deep.equal(before);
  });

  it('unknown customers, keys and plans, including ids that are not UUIDs', async () => {
    const before = await countAllRows();
    const nobody = randomUUID();
    await expectRejected(['customer', 'deactivate', '--customer', nobody], /^Unknown customer/);
    await expectRejected(['customer', 'activate', '--customer', 'not-a-uuid'], /^Unknown customer: not-a-uuid/);
    await expectRejected(['key', 'create', '--customer', nobody], /^Unknown customer/);
    await expectRejected(['key', 'list', '--customer', nobody], /^Unknown customer/);
    await expectRejected(['key', 'revoke', '--key', randomUUID()], /^Unknown key/);
    await expectRejected(['entitlement', 'grant', '--customer', nobody], /^Unknown customer/);
    await expectRejected(['unsubscribe', '--customer', nobody], /^Unknown customer/);
    await expectRejected(['usage', 'show', '--customer', nobody], /^Unknown customer/);
    expect(await countAllRows()).to.deep.equal(before);
  });

  it('a known customer with an unknown plan keeps its subscription untouched (R18)', async () => {
    const { customerId } = await createCustomerFixture();
    const before = await countCustomerRows(customerId);
    await expectRejected(['subscribe', '--customer', customerId, '--plan', `missing-${randomUUID()}`], /^Unknown plan/);
    expect(await countCustomerRows(customerId)).to.deep.equal(before);
  });

  it('an existing plan code is not overwritten', async () => {
    const { planCode } = await createCustomerFixture({ monthlyLimit: 3 });
    const before = await countAllRows();
    await expectRejected(['plan', 'create', '--code', planCode as string, '--monthly-limit', '99'], /^Plan already exists/);
    expect(await countAllRows()).to.deep.equal(before);
    expect((await (await testEm()).findOneOrFail(Plan, planCode as string)).monthlyLimit).to.equal(3);
  });
});

describe('admin help (operator-interface.md)', () => {
  for (const word of ['help', '--help', '-h']) {
    it(`"${word}" lists every command with its options on stdout and exits 0, without a database`, async () => {
      const result = await admin(word);
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.equal('');
      for (const line of ['bootstrap --name <value> [--monthly-limit <value>] [--mode <value>]', 'key create --customer <value> [--name <value>] [--mode <value>]', 'usage show --customer <value> [--month <value>] [--mode <value>]', 'key revoke --key <value>']) {
        expect(result.stdout).to.include(line);
      }
    });
  }
});
