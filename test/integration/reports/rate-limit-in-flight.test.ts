// R52: a customer has at most MAX_IN_FLIGHT_PER_CUSTOMER report creations in flight on one
// instance; one more gets 429 rate_limit_exceeded at step 3 with Retry-After: 1 and
// details.limit equal to that number, and nothing of it is stored or counted. The place is
// given back on every path: success, failure past step 3, idempotent replay. The offline
// generator's OFFLINE_GENERATOR_DELAY_MS holds the admitted requests in flight.
import { expect } from 'chai';
import { createKey } from '../../../src/admin/keys.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { send } from '../../support/http-client.ts';
import { expectApiError } from '../../support/expect-api-error.ts';
import { useService } from '../../support/use-service.ts';
import { scrape, seriesKey } from '../../support/observability/prometheus.ts';
import { bodyNumber, caller, customerTotals, type ErrorBody } from '../../support/reports.ts';

const LIMIT = 4;
const HOLD_MS = 1_500;
const REJECTIONS = seriesKey('ers_admission_rejections_total', { reason: 'customer_in_flight' });

describe('per-customer in-flight limit (R52)', () => {
  const app = useService({
    MAX_IN_FLIGHT_PER_CUSTOMER: String(LIMIT),
    OFFLINE_GENERATOR_DELAY_MS: String(HOLD_MS),
    RATE_LIMIT_REQUESTS: '1000',
    METRICS_PORT: '0',
  });
  const rejections = async () => (await scrape(app.service.metricsUrl as string)).samples.get(REJECTIONS) ?? 0;

  it('10 requests of one customer against a limit of 4: exactly 4 proceed, 6 get 429 with Retry-After: 1 and details.limit 4; another customer is not held up', async () => {
    const client = await app.newCaller();
    const other = await app.newCaller();
    const before = await rejections();
    const sent = Date.now();
    const [answers, otherAnswer] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, (_, i) => client.create(bodyNumber(i)))),
      // Sent once the first customer's requests are in flight.
      new Promise((resolve) => setTimeout(resolve, HOLD_MS / 3)).then(() => other.create(bodyNumber(100))),
    ]);
    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses).to.deep.equal([201, 201, 201, 201, 429, 429, 429, 429, 429, 429]);
    for (const refused of answers.filter((answer) => answer.status === 429)) {
      expectApiError(refused, 'rate_limit_exceeded');
      expect(refused.headers['retry-after']).to.equal('1');
      const details = (refused.body as ErrorBody).error.details as Record<string, unknown>;
      expect(details).to.include({ limit: LIMIT, remaining: 0, retryAfterSeconds: 1 });
      const resetAt = Date.parse(details.resetAt as string);
      expect(resetAt).to.be.within(sent, Date.now() + 1_500);
    }
    expect(otherAnswer.status, 'another customer').to.equal(201);
    // No unit, no report for the refused ones (the ledger holds the same at the end).
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 4, units: 4, claims: 0 });
    expect((await rejections()) - before, 'ers_admission_rejections_total{reason="customer_in_flight"}').to.equal(6);
  });

  it("a customer's test-mode creations have places of their own (R53's bucket of its own): live ones in flight hold up no test one, and test ones are limited alike", async () => {
    const live = await createCustomerFixture();
    const test = await createKey(await testEm(), { customerId: live.customerId, mode: 'test' });
    const post = (apiKey: string, i: number) => send(app.service.url, 'POST', '/v1/evidence/reports', { headers: { 'x-api-key': apiKey }, body: bodyNumber(i) });
    const [lives, tests] = await Promise.all([
      Promise.all(Array.from({ length: LIMIT }, (_, i) => post(live.apiKey, i))),
      // Sent once the live requests hold every live place.
      new Promise((resolve) => setTimeout(resolve, HOLD_MS / 3)).then(() => Promise.all(Array.from({ length: LIMIT + 1 }, (_, i) => post(test.apiKey, 50 + i)))),
    ]);
    expect(lives.map((answer) => answer.status)).to.deep.equal(Array.from({ length: LIMIT }, () => 201));
    expect(tests.map((answer) => answer.status).sort()).to.deep.equal([...Array.from({ length: LIMIT }, () => 201), 429]);
    const refused = tests.find((answer) => answer.status === 429);
    if (!refused) throw new Error('no test-mode refusal');
    expectApiError(refused, 'rate_limit_exceeded');
    expect(refused.headers['ers-mode']).to.equal('test');
  });

  it('places are given back after failures past step 3: repeated quota refusals stay quota refusals', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 0 });
    const client = caller(app.service.url, customer, app.ledger);
    for (let i = 0; i < LIMIT + 3; i += 1) expectApiError(await client.create(bodyNumber(i)), 'quota_exceeded');
  });

  it('places are given back after idempotent replays, and after the requests of the first test', async () => {
    const client = await app.newCaller();
    const headers = { 'idempotency-key': 'in-flight-replay' };
    for (let i = 0; i < LIMIT + 3; i += 1) {
      const answer = await client.create(bodyNumber(1), { headers });
      expect(answer.status, `attempt ${i}`).to.equal(201);
    }
    const burst = await Promise.all(Array.from({ length: LIMIT }, (_, i) => client.create(bodyNumber(10 + i))));
    expect(burst.map((answer) => answer.status)).to.deep.equal(Array.from({ length: LIMIT }, () => 201));
  });
});

describe('per-customer in-flight limit turned off with 0 (R52)', () => {
  const app = useService({ MAX_IN_FLIGHT_PER_CUSTOMER: '0', OFFLINE_GENERATOR_DELAY_MS: '500', RATE_LIMIT_REQUESTS: '1000' });

  it('20 requests of one customer at once all proceed', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => app.client.create(bodyNumber(i))));
    expect(answers.map((answer) => answer.status)).to.deep.equal(Array.from({ length: 20 }, () => 201));
  });
});
