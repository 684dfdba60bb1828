// R33 and R47 on a direct connection (the default: DATABASE_PREPARED_STATEMENTS=true, no
// DATABASE_DIRECT_URL): the server's statement_timeout and idle_in_transaction_session_timeout
// are set by SET once per connection, right after it opens, never as start-up parameters. So a
// statement held by a lock is cancelled by the server itself within the bound, and a request
// sends only its own statements (3 for a report, 1 for a usage read), counted on the wire.
import { expect } from 'chai';
import { startStatementCounter, type StatementCounter } from '../../bench/support/statement-counter.ts';
import { createCustomerFixture, createServerDatabase, openOrm } from '../support/database.ts';
import { expectApiError } from '../support/expect-api-error.ts';
import { lockWaitersAfter, withApiKeyLocked } from '../support/api-key-lock.ts';
import { send } from '../support/http-client.ts';
import { killInstances, startInstances, type Instance } from '../support/instances.ts';
import { bodyNumber, REPORTS_PATH } from '../support/reports.ts';

const STATEMENT_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 2_000;

const post = (base: string, apiKey: string, body: unknown) =>
  send<{ id: string }>(base, 'POST', REPORTS_PATH, { body, headers: { 'x-api-key': apiKey } });

describe('R33 on a direct connection: the bounds are set once per connection (R47)', function () {
  this.timeout(120_000);
  let database: { url: string; drop(): Promise<void> };
  let counter: StatementCounter;
  let running: Instance[] = [];

  before(async () => {
    database = await createServerDatabase();
    const server = new URL(database.url);
    counter = await startStatementCounter(server.hostname, Number(server.port || 5432));
    const viaCounter = new URL(database.url);
    viaCounter.port = String(counter.port);
    running = await startInstances(1, {
      DATABASE_URL: viaCounter.toString(),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS),
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      DB_POOL_SIZE: '4',
      RATE_LIMIT_REQUESTS: '1000000',
    });
  });

  after(async () => {
    killInstances(running);
    await counter?.close();
    await database?.drop();
  });

  const customer = async () => {
    const orm = await openOrm(database.url, 1);
    try {
      return await createCustomerFixture({}, orm.em.fork());
    } finally {
      await orm.close(true);
    }
  };

  it('a report sends its own 3 statements and a usage read 1, with no bound-setting statement among them', async () => {
    const base = running[0]?.url ?? '';
    const c = await customer();
    // Warm: every connection the pool will use has opened (and set its bounds) before counting.
    for (let i = 0; i < 8; i++) expect((await post(base, c.apiKey, bodyNumber(i))).status).to.equal(201);
    counter.take();
    expect((await post(base, c.apiKey, bodyNumber(100))).status).to.equal(201);
    const report = counter.take();
    expect(report.statements, JSON.stringify(report.byName)).to.equal(3);
    expect(Object.keys(report.byName).some((label) => label.includes('set_config')), JSON.stringify(report.byName)).to.equal(false);
    expect((await send(base, 'GET', '/v1/usage/current', { headers: { 'x-api-key': c.apiKey } })).status).to.equal(200);
    expect(counter.take().statements).to.equal(1);
  });

  it("a statement held by a lock is cancelled by the server within the bound: 503 within R33's bound, no session of the service left waiting, then 201 again", async () => {
    const base = running[0]?.url ?? '';
    const c = await customer();
    await withApiKeyLocked(database.url, async (holder) => {
      const started = performance.now();
      expectApiError(await post(base, c.apiKey, bodyNumber(1)), 'api_key_authentication_unavailable');
      expect(performance.now() - started).to.be.below(STATEMENT_TIMEOUT_MS + CONNECT_TIMEOUT_MS + 1_000);
      // Only the server's statement_timeout ends a wait on a lock: the client's read bound gives
      // up on its own side and leaves the server's backend waiting.
      expect(await lockWaitersAfter(holder, STATEMENT_TIMEOUT_MS + 500), 'backends still waiting on the lock').to.deep.equal([]);
    });
    expect((await post(base, c.apiKey, bodyNumber(2))).status).to.equal(201);
  });
});
