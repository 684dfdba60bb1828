// Ruling R47: DATABASE_URL may point at a transaction-mode pooler. A real PgBouncer (Debian's,
// 1.18 on this machine: no prepared-statement support) runs in pool_mode = transaction with a
// stock ignore_startup_parameters (unset: a statement_timeout sent at start-up is refused) in
// front of a fresh database on the test PostgreSQL server. The service runs as real processes
// with DATABASE_PREPARED_STATEMENTS=false and DATABASE_DIRECT_URL on the server itself:
// - POST, keyed POST with replay, GET usage and the quota work under concurrent load;
// - every statement reaches PostgreSQL unnamed (a protocol-reading proxy between a second pooler
//   and the server reads every Parse and Bind: a named statement shows up under its name);
// - R33's statement bound holds behind the pooler: a statement held by a lock gets the
//   fail-closed 503 within the bound, and the next request succeeds once the lock is gone;
// - three instances start at once on an empty database, with and without DATABASE_DIRECT_URL;
// - the expiry sweep (R36) runs, its session-level lock over DATABASE_DIRECT_URL.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { MIGRATIONS } from '../../src/db/migrations/index.ts';
import { createCustomerFixture, createServerDatabase, openOrm, queryOnce, type CustomerFixture } from '../support/database.ts';
import { send } from '../support/http-client.ts';
import { killInstances, startInstances, stopInstances, type Instance } from '../support/instances.ts';
import { startPgbouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { startStatementCounter, type StatementCounter } from '../../bench/support/statement-counter.ts';
import { expectApiError } from '../support/expect-api-error.ts';
import { lockWaitersAfter, withApiKeyLocked } from '../support/api-key-lock.ts';
import { bodyNumber, isReplay, REPORTS_PATH, waitFor } from '../support/reports.ts';
import { expectNoSecretIn, linesOf, testPassword } from '../support/secret-log-lines.ts';
import { runAdmin } from '../support/admin-cli.ts';
import { SWEEP_LOCK_KEY } from '../../src/maintenance/expiry-sweeper.ts';

const STATEMENT_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 2_000;

const post = (base: string, apiKey: string, body: unknown, headers: Record<string, string> = {}) =>
  send<{ id: string }>(base, 'POST', REPORTS_PATH, { body, headers: { 'x-api-key': apiKey, ...headers } });
const usage = (base: string, apiKey: string) =>
  send<{ usage: { used: number; limit: number; remaining: number }[] }>(base, 'GET', '/v1/usage/current', { headers: { 'x-api-key': apiKey } });

describe('behind PgBouncer in transaction mode with stock settings (R47)', function () {
  this.timeout(240_000);
  let database: { url: string; drop(): Promise<void> };
  let bouncer: PgBouncer;
  // PgBouncer -> counter -> PostgreSQL: the counter reads what reaches the server.
  let counter: StatementCounter;
  let counted: PgBouncer;
  let running: Instance[] = [];
  const processes: Instance[] = [];
  // Trust authentication on the pooler and the test server never asks for it, so it travels in
  // both URLs without being needed: the suite's last test looks for it in every line written.
  const password = testPassword('pooled');
  const withPassword = (url: string) => {
    const parsed = new URL(url);
    parsed.password = password;
    return parsed.toString();
  };
  let orm: MikroORM;
  let base: string;

  const env = (overrides: Record<string, string> = {}) => ({
    DATABASE_URL: withPassword(bouncer.urlFor(database.url)),
    DATABASE_PREPARED_STATEMENTS: 'false',
    DATABASE_DIRECT_URL: withPassword(database.url),
    DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
    DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
    DB_POOL_SIZE: '8',
    RATE_LIMIT_REQUESTS: '1000000',
    // 20 concurrent creations of one customer exceed R52's default of 16 in flight, which would
    // refuse some with 429: this suite is about the pooler, not the per-customer bound.
    MAX_IN_FLIGHT_PER_CUSTOMER: '0',
    ...overrides,
  });

  before(async () => {
    database = await createServerDatabase();
    const server = new URL(database.url);
    bouncer = await startPgbouncer(database.url);
    counter = await startStatementCounter(server.hostname, Number(server.port || 5432));
    const viaCounter = new URL(database.url);
    viaCounter.port = String(counter.port);
    counted = await startPgbouncer(viaCounter.toString());
    running = await startInstances(1, env());
    processes.push(...running);
    base = running[0]?.url ?? '';
    orm = await openOrm(database.url, 2);
  });

  after(async () => {
    killInstances(running);
    await orm?.close(true);
    await bouncer?.stop();
    await counted?.stop();
    await counter?.close();
    await database?.drop();
  });

  const customer = (input: Parameters<typeof createCustomerFixture>[0] = {}): Promise<CustomerFixture> =>
    createCustomerFixture(input, orm.em.fork());

  it('a stock PgBouncer refuses statement_timeout as a start-up parameter (so the service must not send it)', async () => {
    const client = new pg.Client({ connectionString: bouncer.urlFor(database.url), statement_timeout: 1000 });
    let refused: unknown;
    await client.connect().catch((error: unknown) => (refused = error));
    await client.end().catch(() => {});
    expect(String((refused as Error | undefined)?.message)).to.match(/unsupported startup parameter/);
  });

  it('60 concurrent POSTs from 3 customers are all 201, and GET usage counts each unit once', async () => {
    const customers = await Promise.all([customer(), customer(), customer()]);
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => post(base, customers[i % 3]!.apiKey, bodyNumber(i))));
    expect(results.map((r) => r.status)).to.deep.equal(Array(60).fill(201));
    for (const c of customers) {
      const res = await usage(base, c.apiKey);
      expect(res.status).to.equal(200);
      expect(res.body.usage[0]?.used).to.equal(20);
    }
  });

  it('keyed POSTs: the same key and body replay the stored report (Idempotent-Replayed), under concurrency too', async () => {
    const c = await customer();
    const keys = Array.from({ length: 10 }, () => randomUUID());
    const first = await Promise.all(keys.map((key, i) => post(base, c.apiKey, bodyNumber(i), { 'idempotency-key': key })));
    expect(first.map((r) => r.status)).to.deep.equal(Array(10).fill(201));
    const again = await Promise.all(keys.map((key, i) => post(base, c.apiKey, bodyNumber(i), { 'idempotency-key': key })));
    expect(again.map((r) => r.status)).to.deep.equal(Array(10).fill(201));
    expect(again.every(isReplay)).to.equal(true);
    expect(again.map((r) => r.body.id)).to.deep.equal(first.map((r) => r.body.id));
    expect((await usage(base, c.apiKey)).body.usage[0]?.used).to.equal(10);
  });

  it('the quota holds: monthly limit 5, five POSTs are 201, the sixth is 429 quota_exceeded, and GET usage says 5 used, 0 remaining', async () => {
    const c = await customer({ monthlyLimit: 5 });
    for (let i = 0; i < 5; i++) expect((await post(base, c.apiKey, bodyNumber(i))).status).to.equal(201);
    expectApiError(await post(base, c.apiKey, bodyNumber(6)), 'quota_exceeded');
    expect((await usage(base, c.apiKey)).body.usage[0]).to.include({ used: 5, remaining: 0 });
  });

  it('every statement reaches PostgreSQL unnamed: a service behind a second PgBouncer, read on the wire, sends no named Parse or Bind', async () => {
    const instances = await startInstances(1, { ...env(), DATABASE_URL: withPassword(counted.urlFor(database.url)) });
    processes.push(...instances);
    try {
      const url = instances[0]?.url ?? '';
      const c = await customer();
      counter.take();
      expect((await post(url, c.apiKey, bodyNumber(1))).status).to.equal(201);
      expect((await post(url, c.apiKey, bodyNumber(2), { 'idempotency-key': randomUUID() })).status).to.equal(201);
      expect((await usage(url, c.apiKey)).status).to.equal(200);
      const seen = counter.take();
      // Unnamed statements are labelled by their text's first words; a name has no space.
      const named = Object.keys(seen.byName).filter((label) => !label.includes(' ') && !/^(begin|commit|rollback)$/i.test(label));
      expect(seen.statements).to.be.greaterThan(0);
      expect(named, JSON.stringify(seen.byName)).to.deep.equal([]);
    } finally {
      await stopInstances(instances);
    }
  });

  it(`a statement held by a lock gets the fail-closed 503 within R33's bound (${STATEMENT_TIMEOUT_MS} ms + ${CONNECT_TIMEOUT_MS} ms + 1 s), and the next request succeeds once the lock is gone`, async () => {
    const c = await customer();
    expect((await post(base, c.apiKey, bodyNumber(1))).status).to.equal(201);
    // Authentication reads api_key: an exclusive lock on it holds that statement.
    await withApiKeyLocked(database.url, async (holder) => {
      const started = performance.now();
      const held = await post(base, c.apiKey, bodyNumber(2));
      const elapsed = performance.now() - started;
      expectApiError(held, 'api_key_authentication_unavailable');
      expect(elapsed).to.be.below(STATEMENT_TIMEOUT_MS + CONNECT_TIMEOUT_MS + 1_000);
      // The server cancels what waits on the lock (statement_timeout set in each statement's own
      // transaction), not only the client: within one more bound no session of the service waits.
      const left = await lockWaitersAfter(holder, STATEMENT_TIMEOUT_MS + 500);
      expect(left, JSON.stringify(left)).to.deep.equal([]);
    });
    expect((await post(base, c.apiKey, bodyNumber(3))).status).to.equal(201);
  });

  for (const direct of [true, false]) {
    it(`the expiry sweep runs (R36) ${direct ? 'under its session-level lock over DATABASE_DIRECT_URL' : 'without DATABASE_DIRECT_URL, under a lock per statement'}: an abandoned claim is deleted within a few intervals`, async () => {
      // The suite's main instance sweeps every 300 s (the default): this one, every second.
      const sweeping = await startInstances(1, env({ IDEMPOTENCY_SWEEP_INTERVAL_SECONDS: '1', DATABASE_DIRECT_URL: direct ? withPassword(database.url) : '' }));
      processes.push(...sweeping);
      try {
        const c = await customer();
        const key = `sweep-${randomUUID()}`;
        await queryOnce(
          database.url,
          `insert into idempotency_record (customer_id, product, operation, idempotency_key, fingerprint, status, lease_expires_at, expires_at)
           values ($1, 'evidence_reports', 'evidence_report', $2, repeat('a', 64), 'in_progress', now() - interval '1 hour', null)`,
          [c.customerId, key],
        );
        await waitFor(async () => (await queryOnce(database.url, 'select 1 from idempotency_record where idempotency_key = $1', [key])).length === 0, 15_000);
        // No session-level sweep lock is left behind on any server connection.
        expect(await queryOnce(database.url, "select 1 from pg_locks where locktype = 'advisory' and objid = $1", [SWEEP_LOCK_KEY % 2 ** 32])).to.deep.equal([]);
      } finally {
        await stopInstances(sweeping);
      }
    });
  }

  for (const direct of [true, false]) {
    it(`three instances start at once on an empty database through the pooler${direct ? ' (migrations over DATABASE_DIRECT_URL)' : ' (no DATABASE_DIRECT_URL: migrations through the pooler)'}: migrations applied once, all ready`, async () => {
      const empty = await createServerDatabase();
      let three: Instance[] = [];
      try {
        three = await startInstances(3, { ...env(), DATABASE_URL: withPassword(bouncer.urlFor(empty.url)), DATABASE_DIRECT_URL: direct ? withPassword(empty.url) : '', DB_POOL_SIZE: '2' });
        processes.push(...three);
        const appliers = three.filter(({ process }) => process.stdoutLines.some((line) => line.includes('"migrations applied"')));
        expect(appliers).to.have.length(1);
        const applied = await queryOnce<{ name: string }>(empty.url, 'select name from mikro_orm_migrations order by id');
        expect(applied.map((row) => row.name)).to.deep.equal(MIGRATIONS.map((m) => m.name));
        for (const { url } of three) expect((await send(url, 'GET', '/readyz')).status).to.equal(200);
        expect(await stopInstances(three)).to.deep.equal([0, 0, 0]);
        three = [];
      } finally {
        killInstances(three);
        await empty.drop();
      }
    });
  }

  it('the admin command line works through the pooler, and no line of any process of this suite, nor of the admin command, carries the password (R48)', async () => {
    const admin = await runAdmin(['bootstrap', '--name', 'pooled admin', '--json'], { ...env(), DATABASE_DIRECT_URL: withPassword(database.url) });
    expect(admin.code, admin.stderr).to.equal(0);
    const failed = await runAdmin(['usage', 'show', '--customer', randomUUID()], env({ DATABASE_URL: withPassword('postgres://nobody@127.0.0.1:1/none') }));
    expect(failed.code).to.equal(1);
    expect(failed.stderr.trim().split('\n')).to.have.length(1);
    const lines = [...processes.flatMap(({ process }) => linesOf(process)), ...`${admin.stdout}\n${admin.stderr}\n${failed.stderr}`.split('\n')];
    expectNoSecretIn(lines, [password]);
  });
});
