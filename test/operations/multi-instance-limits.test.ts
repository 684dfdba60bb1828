// Ruling R34: N instances on one database (and one Redis) enforce the same limits as one. Three
// real service processes share a fresh database on a PostgreSQL server; requests are spread
// round robin over them, all at once:
// - the technical rate limit (R20) is exact in total, not per instance, on the postgres and on
//   the redis store;
// - one Idempotency-Key sent to all three at once gives one report and one unit; every other
//   answer is a replay of it or 409 idempotency_in_progress (R12 to R14);
// - the quota holds within what spec section 8 allows (R17: no reservation, concurrent requests
//   may all take the last unit). The overshoot is measured and printed, not assumed.
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createCustomerFixture, createServerDatabase, openOrm, type CustomerFixture } from '../support/database.ts';
import { client, type TestResponse } from '../support/http-client.ts';
import { killInstances, startInstances, stopInstances, type Instance } from '../support/instances.ts';
import { bodyNumber, customerTotals, isReplay, type CreatedReport } from '../support/reports.ts';
import { expectApiError } from '../support/expect-api-error.ts';

const INSTANCES = 3;
/** RATE_LIMIT_REQUESTS of every instance: per customer and window, in total. */
const RATE_LIMIT = 25;
const STORES = [
  { store: 'postgres', env: {} },
  { store: 'redis', env: { REDIS_URL: 'redis://127.0.0.1:6379' } },
] as const;

/** `count` requests at once, request i to instance i mod 3. */
function roundRobin<T>(instances: readonly Instance[], count: number, send: (url: string, i: number) => Promise<T>): Promise<T[]> {
  return Promise.all(Array.from({ length: count }, (_, i) => send((instances[i % instances.length] as Instance).url, i)));
}

const statuses = (answers: readonly TestResponse[]) => answers.map((res) => res.status);
const count = (answers: readonly TestResponse[], status: number) => answers.filter((res) => res.status === status).length;

describe('three instances on one database share the limits (R34)', function () {
  this.timeout(180_000);
  let database: { url: string; drop(): Promise<void> };
  let orm: MikroORM;

  before(async () => {
    database = await createServerDatabase();
  });
  after(async () => {
    await orm?.close(true);
    await database?.drop();
  });

  const customer = async (monthlyLimit?: number): Promise<CustomerFixture> =>
    createCustomerFixture(monthlyLimit === undefined ? {} : { monthlyLimit }, orm.em.fork());
  const totals = (customerId: string) => customerTotals(customerId, orm.em.fork());

  for (const { store, env } of STORES) {
    describe(`with RATE_LIMIT_STORE=${store}`, () => {
      let instances: Instance[] = [];

      before(async () => {
        instances = await startInstances(INSTANCES, {
          DATABASE_URL: database.url,
          // 25 requests at once per instance on a busy two-core machine: a pool wait may be long.
          // Not what this suite is about (database-partition.test.ts holds the bounds).
          DB_POOL_SIZE: '6',
          DB_CONNECT_TIMEOUT_MS: '5000',
          RATE_LIMIT_STORE: store,
          RATE_LIMIT_REQUESTS: String(RATE_LIMIT),
          RATE_LIMIT_WINDOW_SECONDS: '60',
          ...env,
        });
        // The first group's instances migrated the database; the test's own ORM comes after.
        orm ??= await openOrm(database.url, 2);
      });
      after(async () => {
        const codes = await stopInstances(instances);
        killInstances(instances);
        expect(codes, 'exit codes after SIGTERM').to.deep.equal(Array(INSTANCES).fill(0));
      });

      it(`the technical rate limit is exact in total: ${RATE_LIMIT} allowed per window across the three, not per instance (R20, R34)`, async () => {
        const { customerId, apiKey } = await customer();
        // Three times the limit, one third to each instance: a per-process counter would allow all.
        const answers = await roundRobin(instances, INSTANCES * RATE_LIMIT, (url, i) => client(url, apiKey).createReport(bodyNumber(i)));
        expect(count(answers, 201), `201s of ${statuses(answers).join(',')}`).to.equal(RATE_LIMIT);
        for (const res of answers) if (res.status !== 201) expectApiError(res, 'rate_limit_exceeded');
        expect(await totals(customerId)).to.deep.equal({ reports: RATE_LIMIT, units: RATE_LIMIT, claims: 0 });
        const perInstance = instances.map((_, k) => answers.filter((res, i) => i % INSTANCES === k && res.status === 201).length);
        process.stdout.write(`\n      rate limit (${store} store): ${RATE_LIMIT} x 201 of ${answers.length} requests, per instance ${perInstance.join(' + ')}\n`);
      });

      it('one Idempotency-Key sent to all three at once (3 x 5 identical requests) gives one report and one unit; the rest replay it or get 409 idempotency_in_progress (R12 to R14)', async () => {
        for (let round = 0; round < 3; round++) {
          const { customerId, apiKey } = await customer();
          const key = `shared-across-instances-${round}`;
          const answers = await roundRobin(instances, INSTANCES * 5, (url) =>
            client(url, apiKey).createReport<CreatedReport>(bodyNumber(round), { 'Idempotency-Key': key }),
          );
          const originals = answers.filter((res) => res.status === 201 && !isReplay(res));
          expect(originals, `round ${round}: originals among ${statuses(answers).join(',')}`).to.have.length(1);
          const id = originals[0]?.body.id;
          for (const res of answers) {
            if (res.status === 201) expect(res.body.id, `round ${round}: every 201 is the one report`).to.equal(id);
            else expectApiError(res, 'idempotency_in_progress');
          }
          expect(await totals(customerId), `round ${round}`).to.deep.equal({ reports: 1, units: 1, claims: 0 });
          // Afterwards every instance replays the same report.
          for (const { url } of instances) {
            const replay = await client(url, apiKey).createReport<CreatedReport>(bodyNumber(round), { 'Idempotency-Key': key });
            expect([replay.status, isReplay(replay), replay.body.id]).to.deep.equal([201, true, id]);
          }
        }
      });

      if (store !== 'postgres') return;

      it('the quota holds within spec section 8 (R17): with limit L and 3 x 8 requests at once, at least L succeed, every other is 429 quota_exceeded, units == reports == 201s, and the next request is refused; the overshoot is measured', async () => {
        const LIMIT = 10;
        const overshoots: number[] = [];
        for (let round = 0; round < 3; round++) {
          const { customerId, apiKey } = await customer(LIMIT);
          const answers = await roundRobin(instances, INSTANCES * 8, (url, i) => client(url, apiKey).createReport(bodyNumber(i)));
          const created = count(answers, 201);
          for (const res of answers) if (res.status !== 201) expectApiError(res, 'quota_exceeded');
          // A request is refused only once L units are recorded, so at least L succeed; more may,
          // when they checked the quota before the L-th unit was committed (no reservation).
          expect(created, `round ${round}`).to.be.at.least(LIMIT);
          expect(await totals(customerId), `round ${round}`).to.deep.equal({ reports: created, units: created, claims: 0 });
          expectApiError(await client((instances[round] as Instance).url, apiKey).createReport(bodyNumber(99)), 'quota_exceeded');
          overshoots.push(created - LIMIT);
        }
        process.stdout.write(
          `\n      quota overshoot (limit ${LIMIT}, ${INSTANCES} instances x 8 concurrent requests, 3 rounds): ${overshoots.join(', ')} report(s) over the limit\n`,
        );
      });
    });
  }
});
