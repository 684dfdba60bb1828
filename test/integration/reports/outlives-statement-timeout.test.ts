// Steps on a PostgreSQL server whose table another session holds past statement_timeout (R33):
// the step that waited names the code. Writes (R15): a report insert that never got its lock is
// evidence_report_write_failed, a usage insert usage_recording_failed; either way nothing of the
// attempt remains and the same key makes the one report once the lock is gone. Reads: step 1
// reads the key and, in blocks of their own, the entitlement and the month's usage in one
// statement (caller_facts); an entitlement or usage read that waits past the bound is that
// step's 503 (entitlement_check_unavailable, current_usage_unavailable, quota_check_unavailable),
// not authentication's. PL/pgSQL's OTHERS does not match the cancel (query_canceled), so the
// functions trap it by name. A server's own statement_timeout is what cancels: the embedded
// database has none, so this runs on the server in both of the suite's runs.
import { expect } from 'chai';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { applyMigrations } from '../../../src/db/migrator.ts';
import type { ErrorCode } from '../../../src/errors/catalogue.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { createCustomerFixture, createServerDatabase, openOrm } from '../../support/database.ts';
import { startTestService, type TestService } from '../../support/service.ts';
import { caller, customerTotals, isReplay, Ledger, VALID_BODY } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';
import { send } from '../../support/http-client.ts';

const STATEMENT_TIMEOUT_MS = 1_000;

const LOCKED: [table: string, code: ErrorCode][] = [
  ['evidence_report', 'evidence_report_write_failed'],
  ['usage_record', 'usage_recording_failed'],
];

describe('a step that outlives statement_timeout is its own 503 (R15, R33)', function () {
  this.timeout(60_000);
  const ledger = new Ledger();
  let database: { url: string; drop(): Promise<void> };
  let orm: MikroORM;
  let service: TestService;

  before(async () => {
    database = await createServerDatabase();
    orm = await openOrm(database.url, 2);
    await applyMigrations(orm);
    service = await startTestService(
      { DATABASE_URL: database.url, DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) },
      { generator: new FakeReportGenerator() },
    );
  });
  after(async () => {
    await service?.close();
    if (orm) await ledger.verify(orm.em.fork());
    await orm?.close(true);
    await database?.drop();
  });

  /** Runs `during` while another session holds `table` in `mode`; the lock ends with it. */
  async function whileLocked<T>(table: string, mode: string, during: () => Promise<T>): Promise<T> {
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query(`lock table ${table} in ${mode} mode`);
      return await during();
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
  }

  it('usage_counter locked against reads: GET usage 503 current_usage_unavailable, POST 503 quota_check_unavailable, after the bound; both answer once it is gone', async () => {
    const customer = await createCustomerFixture({}, orm.em.fork());
    const client = caller(service.url, customer, ledger);
    const started = performance.now();
    const [usage, created] = await whileLocked('usage_counter', 'access exclusive', async () => {
      const read = send(service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': customer.apiKey } });
      return Promise.all([read, client.create(VALID_BODY)]);
    });
    expectApiError(usage, 'current_usage_unavailable');
    expectApiError(created, 'quota_check_unavailable');
    expect(performance.now() - started, 'answered once the bound ran out, not before').to.be.at.least(STATEMENT_TIMEOUT_MS);
    expect(await customerTotals(customer.customerId, orm.em.fork())).to.deep.equal({ reports: 0, units: 0, claims: 0 });
    expect((await send(service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': customer.apiKey } })).status).to.equal(200);
    expect((await client.create(VALID_BODY)).status).to.equal(201);
  });

  it('product_entitlement locked against reads: POST 503 entitlement_check_unavailable after the bound (spec section 5 item 8), 201 once it is gone', async () => {
    const customer = await createCustomerFixture({}, orm.em.fork());
    const client = caller(service.url, customer, ledger);
    const started = performance.now();
    const created = await whileLocked('product_entitlement', 'access exclusive', () => client.create(VALID_BODY));
    expectApiError(created, 'entitlement_check_unavailable');
    expect(performance.now() - started, 'answered once the bound ran out, not before').to.be.at.least(STATEMENT_TIMEOUT_MS);
    expect(await customerTotals(customer.customerId, orm.em.fork())).to.deep.equal({ reports: 0, units: 0, claims: 0 });
    expect((await client.create(VALID_BODY)).status).to.equal(201);
  });

  for (const [table, code] of LOCKED) {
    it(`${table} held against writes by another session (share mode, reads go on): 503 ${code} after the bound, nothing remains, and the same key works once unlocked`, async () => {
      const client = caller(service.url, await createCustomerFixture({}, orm.em.fork()), ledger);
      const headers = { 'idempotency-key': `locked-${table}` };
      const started = performance.now();
      const res = await whileLocked(table, 'share', () => client.create(VALID_BODY, { headers }));
      expectApiError(res, code);
      expect(performance.now() - started, 'answered once the bound ran out, not before').to.be.at.least(STATEMENT_TIMEOUT_MS);
      expect(await customerTotals(client.customerId, orm.em.fork())).to.deep.equal({ reports: 0, units: 0, claims: 0 });

      const retry = await client.create(VALID_BODY, { headers });
      expect(retry.status).to.equal(201);
      expect(isReplay(retry)).to.equal(false);
      expect(await customerTotals(client.customerId, orm.em.fork())).to.deep.equal({ reports: 1, units: 1, claims: 0 });
    });
  }
});
