// Ruling R33: every wait on the database is bounded. A fault proxy between the service and
// PostgreSQL turns into a network partition (accepts, forwards nothing, closes nothing) at the
// moment a given statement is sent, so that each step that touches the database is caught while
// it waits. Each request gets the fail-closed 503 of that step within
// DB_CONNECT_TIMEOUT_MS + DB_STATEMENT_TIMEOUT_MS + 1 s, /readyz answers 503 within 2 s,
// /healthz stays 200, and once the proxy passes traffic again requests succeed within 15 s with
// no restart. Nothing of an interrupted attempt remains (R14, R15): the ledger holds reports ==
// units == 201s and no claim left in progress.
import { expect } from 'chai';
import type { ErrorCode } from '../../src/errors/catalogue.ts';
import { FakeReportGenerator } from '../../src/generation/fake-report-generator.ts';
import { proxyToTestDatabase, testDatabaseUrl } from '../support/database.ts';
import { send, type TestResponse } from '../support/http-client.ts';
import { useService } from '../support/use-service.ts';
import { viaProxy, type TcpProxy } from '../support/tcp-proxy.ts';
import { bodyNumber, customerTotals, waitFor, type Caller } from '../support/reports.ts';
import { expectApiError } from '../support/expect-api-error.ts';

const CONNECT_MS = 800;
const STATEMENT_MS = 1_200;
const BOUND_MS = CONNECT_MS + STATEMENT_MS + 1_000;
const RECOVERY_MS = 15_000;

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

interface StepCase {
  step: string;
  /** Bytes of the statement that the step sends: its prepared-statement name and a part of its text. */
  markers: string[];
  code: ErrorCode;
  send: (client: Caller, n: number) => Promise<TestResponse>;
}

const withKey = (client: Caller, n: number) =>
  client.create(bodyNumber(n), { headers: { 'idempotency-key': `partition-${n}` } });

// The statements each step sends, in processing order (spec section 1). Step 1's one read
// (caller_facts) also brings the facts of steps 4 and 6 and of GET usage, so a database
// that hangs during it is step 1's 503 for both operations; steps 4 and 6 send nothing of their
// own (each fails closed with its own 503 when only its fact cannot be read:
// test/integration/reports/dependency-failures.test.ts).
const STEPS: StepCase[] = [
  { step: '1. authentication (POST)', markers: ['caller_facts'], code: 'api_key_authentication_unavailable', send: withKey },
  { step: '1. authentication (GET usage)', markers: ['caller_facts'], code: 'api_key_authentication_unavailable', send: (client) => client.usage() },
  { step: '3. rate limit (postgres store)', markers: ['rate_limit_counter'], code: 'rate_limit_unavailable', send: withKey },
  { step: '5. idempotency claim', markers: ['idempotency_claim', 'insert into idempotency_record'], code: 'idempotency_unavailable', send: withKey },
  { step: '9-10. persistence', markers: ['record_evidence_report'], code: 'evidence_report_write_failed', send: withKey },
];

describe('a database partition at each step is bounded and recovered from (R33, R14, R15)', function () {
  this.timeout(120_000);
  let proxy: TcpProxy;
  let n = 0;

  before(async () => {
    proxy = await proxyToTestDatabase();
  });
  const app = useService(
    () => ({
      DATABASE_URL: viaProxy(testDatabaseUrl(), proxy),
      DB_CONNECT_TIMEOUT_MS: String(CONNECT_MS),
      DB_STATEMENT_TIMEOUT_MS: String(STATEMENT_MS),
    }),
    { generator: new FakeReportGenerator() },
  );
  before(async () => {
    expect((await app.client.create(bodyNumber(n++))).status).to.equal(201);
  });
  afterEach(() => proxy.restore());
  after(async () => {
    await proxy?.close();
  });

  for (const { step, markers, code, send: sendRequest } of STEPS) {
    it(`${step}: 503 ${code} within connect + statement + 1 s; healthz 200, readyz 503 within 2 s; then 201 within 15 s`, async () => {
      const partitioned = proxy.blackholeWhen(...markers);
      const pending = timed(sendRequest(app.client, n++));
      await Promise.race([partitioned, pending.then(() => expect.fail(`the request never sent ${markers.join(' or ')}`))]);

      const health = await timed(send(app.service.url, 'GET', '/healthz'));
      expect(health.value.status, 'healthz during the partition').to.equal(200);
      const ready = await timed(send(app.service.url, 'GET', '/readyz'));
      expect(ready.value.status, 'readyz during the partition').to.equal(503);
      expect(ready.ms, 'readyz answers within 2 s').to.be.below(2_000);

      const { value: response, ms } = await pending;
      expectApiError(response, code);
      expect(ms, `${code} within the R33 bound`).to.be.below(BOUND_MS);

      proxy.restore();
      const recovered = performance.now();
      let last: TestResponse | undefined;
      await waitFor(async () => {
        last = await app.client.create(bodyNumber(n++));
        return last.status === 201;
      }, RECOVERY_MS);
      expect(performance.now() - recovered, `recovered within 15 s (last: ${last?.status})`).to.be.below(RECOVERY_MS);
      expect((await send(app.service.url, 'GET', '/readyz')).status).to.equal(200);
      // R14: a claim whose release failed during the partition is released once the database is back.
      await waitFor(async () => (await customerTotals(app.client.customerId)).claims === 0, RECOVERY_MS);
    });
  }

  it('more requests than the pool caught by one partition all get 503 within the bound, and the pool recovers (R33)', async () => {
    const requests = app.service.config.dbPoolSize + 4;
    proxy.blackhole();
    const answers = await Promise.all(Array.from({ length: requests }, () => timed(withKey(app.client, n++))));
    for (const { value, ms } of answers) {
      expect(value.status, value.text).to.equal(503);
      expect(ms).to.be.below(BOUND_MS);
    }
    proxy.restore();
    await waitFor(async () => (await app.client.create(bodyNumber(n++))).status === 201, RECOVERY_MS);
    const again = await Promise.all(Array.from({ length: requests }, () => app.client.create(bodyNumber(n++))));
    expect(again.map((r) => r.status)).to.deep.equal(again.map(() => 201));
  });
});
