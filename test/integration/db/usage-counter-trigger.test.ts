// Rulings R15 and R17: usage_counter holds, per customer, operation and UTC month, exactly
// the sum of usage_record units, kept by a trigger in the same transaction as the records,
// so the quota check reads one row whatever the month's volume (spec 2.7: records stay the
// source of truth).
import { expect } from 'chai';
import type { EntityManager } from '@mikro-orm/postgresql';
import { UsageCounter } from '../../../src/usage/usage-counter.entity.ts';
import { UsageRecord } from '../../../src/usage/usage-record.entity.ts';
import { monthPeriod } from '../../../src/usage/period.ts';
import { UsageRepository } from '../../../src/usage/usage-repository.ts';

/** The month's total as the service reads it (usage_counter). */
const usedInPeriod = (em: EntityManager, customerId: string, periodStart: Date): Promise<number> =>
  new UsageRepository(em).used(customerId, monthPeriod(periodStart));
import { createCustomerFixture, testEm } from '../../support/database.ts';

const OP = 'evidence_report';
const JAN = new Date('2026-01-01T00:00:00Z');
const FEB = new Date('2026-02-01T00:00:00Z');

async function record(em: EntityManager, customerId: string, occurredAt: string, units = 1): Promise<string> {
  const row = em.create(UsageRecord, { customer: customerId, operation: OP, units, occurredAt: new Date(occurredAt) });
  await em.flush();
  return row.id;
}

// The counter must always equal the records it summarises.
async function expectCounterMatchesRecords(customerId: string): Promise<void> {
  const em = await testEm();
  const sums = await em.execute<{ period_start: Date; units: string }[]>(
    `select usage_period_start(occurred_at) as period_start, sum(units) as units
       from usage_record where customer_id = ? group by 1`,
    [customerId],
  );
  for (const sum of sums) expect(await usedInPeriod(em, customerId, new Date(sum.period_start))).to.equal(Number(sum.units));
}

describe('usage_counter trigger (R15, R17)', () => {
  it('counts inserts in the UTC month of occurred_at, separately per month (R17)', async () => {
    const { customerId } = await createCustomerFixture();
    const em = await testEm();
    await record(em, customerId, '2026-01-01T00:00:00.000Z', 2);
    await record(em, customerId, '2026-01-31T23:59:59.999Z', 3);
    await record(em, customerId, '2026-02-01T00:00:00.000Z', 5);
    expect(await usedInPeriod(em, customerId, JAN)).to.equal(5);
    expect(await usedInPeriod(em, customerId, FEB)).to.equal(5);
    await expectCounterMatchesRecords(customerId);
  });

  it('uses the UTC month whatever the session time zone (spec section 8)', async () => {
    const { customerId } = await createCustomerFixture();
    await (await testEm()).transactional(async (tx) => {
      // 2026-02-28 18:00 in Los Angeles, but already March in UTC.
      await tx.execute(`set local time zone 'America/Los_Angeles'`);
      await record(tx, customerId, '2026-03-01T02:00:00Z');
    });
    const em = await testEm();
    expect(await usedInPeriod(em, customerId, new Date('2026-03-01T00:00:00Z'))).to.equal(1);
    expect(await usedInPeriod(em, customerId, FEB)).to.equal(0);
  });

  it('subtracts deleted records and follows updated ones, units and month (R15)', async () => {
    const { customerId } = await createCustomerFixture();
    const em = await testEm();
    const a = await record(em, customerId, '2026-01-10T00:00:00Z', 4);
    const b = await record(em, customerId, '2026-01-11T00:00:00Z', 6);
    await em.nativeDelete(UsageRecord, a);
    expect(await usedInPeriod(em, customerId, JAN)).to.equal(6);
    await em.nativeUpdate(UsageRecord, b, { occurredAt: new Date('2026-02-03T00:00:00Z'), units: 7 });
    expect(await usedInPeriod(em, customerId, JAN)).to.equal(0);
    expect(await usedInPeriod(em, customerId, FEB)).to.equal(7);
    await expectCounterMatchesRecords(customerId);
  });

  it('stays exact for a bulk insert of 10,000 records in one statement (R17)', async () => {
    const { customerId } = await createCustomerFixture();
    const em = await testEm();
    await em.execute(
      `insert into usage_record (id, customer_id, operation, units, occurred_at)
       select gen_random_uuid(), ?, ?, 1 + (i % 3), timestamptz '2026-01-31T12:00:00Z' + i * interval '1 second'
       from generate_series(1, 10000) as i`,
      [customerId, OP],
    );
    // 12 hours of January (43,200 s) hold all 10,000 rows: units 1 + (i % 3) sum to 20,000.
    expect(await usedInPeriod(em, customerId, JAN)).to.equal(20_000);
    expect(await em.count(UsageCounter, { customer: customerId })).to.equal(1);
    await expectCounterMatchesRecords(customerId);
  });

  it('stays exact under concurrent inserting transactions (R15, R17)', async () => {
    const { customerId } = await createCustomerFixture();
    await Promise.all(
      Array.from({ length: 40 }, async () =>
        (await testEm()).transactional(async (tx) => {
          await record(tx, customerId, '2026-01-15T00:00:00Z');
        }),
      ),
    );
    expect(await usedInPeriod(await testEm(), customerId, JAN)).to.equal(40);
  });

  it('rolls back with the transaction that wrote the records (R15)', async () => {
    const { customerId } = await createCustomerFixture();
    const failure = await (await testEm())
      .transactional(async (tx) => {
        await record(tx, customerId, '2026-01-20T00:00:00Z', 9);
        throw new Error('abort after the insert');
      })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    // The insert itself went through: the transaction ended on the throw after it, nothing else.
    expect((failure as Error | undefined)?.message).to.equal('abort after the insert');
    expect(await usedInPeriod(await testEm(), customerId, JAN)).to.equal(0);
  });

  it('reads 0 for a customer and month without records (spec 4.2: used 0, not an error)', async () => {
    const { customerId } = await createCustomerFixture();
    expect(await usedInPeriod(await testEm(), customerId, JAN)).to.equal(0);
  });
});
