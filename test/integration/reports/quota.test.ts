// Step 6, the monthly quota (spec 2.6 and section 8, rulings R17, R18, R31): no active plan is
// 403 quota_access_denied; with limit L, used L-1 is allowed and used L is 429 quota_exceeded
// with the details of spec 2.6 (resetAt = start of the next UTC month) and no Retry-After.
// The clock is fixed at the last second of a year so that the period edge is part of the test.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createPlan } from '../../../src/admin/plans.ts';
import { subscribe } from '../../../src/admin/subscriptions.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { FixedClock } from '../../../src/shared/clock.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { useService } from '../../support/use-service.ts';
import { send } from '../../support/http-client.ts';
import { bodyNumber, caller, customerTotals, postWithLateBody } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';
import { QUOTA_FIGURE_MAX_AGE_MS } from '../../../src/reports/stages/check-quota.ts';

const LAST_SECOND_OF_2026 = '2026-12-31T23:59:59.000Z';
const START_OF_2027 = '2027-01-01T00:00:00.000Z';

describe('POST /v1/evidence/reports: the monthly quota (spec 2.6, section 8, R17, R18, R31)', () => {
  const generator = new FakeReportGenerator();
  const imageFetcher = new FakeImageFetcher();
  const clock = new FixedClock(LAST_SECOND_OF_2026);

  const app = useService({}, { generator, imageFetcher, clock });
  beforeEach(() => clock.set(LAST_SECOND_OF_2026));

  it('a customer without an active plan is 403 quota_access_denied, and nothing is generated (R18)', async () => {
    const client = await app.newCaller({ noPlan: true });
    const calls = generator.callCount;
    expectApiError(await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'no-plan' } }), 'quota_access_denied');
    expect(generator.callCount).to.equal(calls);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 0, units: 0, claims: 0 });
  });

  it('monthlyLimit 1: the last unit is consumed, the next request is 429 quota_exceeded with the details of spec 2.6', async () => {
    const client = await app.newCaller({ monthlyLimit: 1 });
    expect((await client.create(bodyNumber(1))).status).to.equal(201);
    const calls = generator.callCount;
    const res = await client.create(bodyNumber(2), { headers: { 'idempotency-key': 'over-quota' } });
    expectApiError(res, 'quota_exceeded', {
      operation: 'evidence_report',
      limit: 1,
      used: 1,
      remaining: 0,
      requestedUnits: 1,
      resetAt: START_OF_2027,
    });
    expect(res.headers, 'R31: only the rate-limit 429 has Retry-After').not.to.have.property('retry-after');
    expect(generator.callCount).to.equal(calls);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });

  it('monthlyLimit 0: the first request is already 429 quota_exceeded (used 0, remaining 0)', async () => {
    const client = await app.newCaller({ monthlyLimit: 0 });
    expectApiError(await client.create(bodyNumber(1)), 'quota_exceeded', {
      operation: 'evidence_report',
      limit: 0,
      used: 0,
      remaining: 0,
      requestedUnits: 1,
      resetAt: START_OF_2027,
    });
  });

  it('with limit L, used L-1 is allowed and used L is blocked (spec section 8)', async () => {
    const client = await app.newCaller({ monthlyLimit: 3 });
    const statuses = [];
    for (const n of [1, 2, 3, 4]) statuses.push((await client.create(bodyNumber(n))).status);
    expect(statuses).to.deep.equal([201, 201, 201, 429]);
  });

  it('a new UTC month starts with the full quota again (spec section 8: resetAt is when)', async () => {
    const client = await app.newCaller({ monthlyLimit: 1 });
    expect((await client.create(bodyNumber(1))).status).to.equal(201);
    expectApiError(await client.create(bodyNumber(2)), 'quota_exceeded');
    clock.set(START_OF_2027);
    expect((await client.create(bodyNumber(3))).status).to.equal(201);
    expectApiError(await client.create(bodyNumber(4)), 'quota_exceeded', {
      operation: 'evidence_report',
      limit: 1,
      used: 1,
      remaining: 0,
      requestedUnits: 1,
      resetAt: '2027-02-01T00:00:00.000Z',
    });
  });

  it('a request authenticated in the last second of a month is judged and counted in that month, however late its body arrives (R17)', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 1 });
    // The headers now: step 1 authenticates (R5) and reads the month's facts on December's
    // clock; the body after midnight: still December's request, its unit December's.
    const answer = await postWithLateBody(app.service.url, customer, bodyNumber(1), () => clock.set('2027-01-01T00:00:01.000Z'));
    expect(answer.slice(0, 12)).to.equal('HTTP/1.1 201');
    const em = await testEm();
    const units = await em.fork().execute<{ n: string }[]>(`select count(*) as n from usage_record where customer_id = ? and occurred_at < ?`, [customer.customerId, START_OF_2027]);
    expect(Number(units[0]?.n), "the unit is in the month its quota was judged in").to.equal(1);
    // So January's quota is whole: its first request is served.
    const january = await send(app.service.url, 'POST', '/v1/evidence/reports', { body: bodyNumber(2), headers: { 'x-api-key': customer.apiKey } });
    expect(january.status).to.equal(201);
  });

  it('a body that arrives seconds after its headers is judged by the usage recorded by then: the unit another request took meanwhile is gone (spec section 8)', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 1 });
    // Step 1 reads used 0 when the headers arrive; before the body, another request takes the
    // last unit and the clock moves past the freshness of step 1's figure.
    const answer = await postWithLateBody(app.service.url, customer, bodyNumber(1), async () => {
      const other = await send(app.service.url, 'POST', '/v1/evidence/reports', { body: bodyNumber(2), headers: { 'x-api-key': customer.apiKey } });
      expect(other.status).to.equal(201);
      clock.set(new Date(Date.parse(LAST_SECOND_OF_2026) + QUOTA_FIGURE_MAX_AGE_MS + 1));
    });
    expect(answer.slice(0, 12)).to.equal('HTTP/1.1 429');
    const { error } = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; details: unknown } };
    expect(error.code).to.equal('quota_exceeded');
    expect(error.details).to.deep.include({ limit: 1, used: 1, remaining: 0, resetAt: START_OF_2027 });
    expect(await customerTotals(customer.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });

  it('a bigger plan takes effect on the next request (R21: no caching of plan decisions)', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 1 });
    const client = caller(app.service.url, customer, app.ledger);
    expect((await client.create(bodyNumber(1))).status).to.equal(201);
    expectApiError(await client.create(bodyNumber(2)), 'quota_exceeded');
    const { planCode } = await createPlan(await testEm(), { code: `quota-test-${randomBytes(4).toString('hex')}`, monthlyLimit: 2, usageVisible: true });
    await subscribe(await testEm(), { customerId: customer.customerId, planCode });
    expect((await client.create(bodyNumber(3))).status).to.equal(201);
  });

  it('a quota-rejected request with an image URL fetches nothing (spec section 1, step 6 before step 7)', async () => {
    const client = await app.newCaller({ monthlyLimit: 0 });
    const fetches = imageFetcher.calls.length;
    const res = await client.create({ context: 'damage_report', evidence: { images: [{ url: 'https://img.example/dent.png' }] } });
    expectApiError(res, 'quota_exceeded');
    expect(imageFetcher.calls.length).to.equal(fetches);
  });

  it('GET usage agrees: the rejected requests recorded no unit (spec 2.7)', async () => {
    const client = await app.newCaller({ monthlyLimit: 1 });
    await client.create(bodyNumber(1));
    await client.create(bodyNumber(2));
    const res = await client.usage<{ usage: unknown[] }>();
    expect(res.status).to.equal(200);
    expect(res.body.usage).to.deep.equal([{ operation: 'evidence_report', used: 1, limit: 1, remaining: 0 }]);
  });
});

describe('POST /v1/evidence/reports: a body that arrives late, against the rate limit (spec 2.5, R17, R20)', () => {
  const START = '2026-11-25T10:00:00.000Z';
  const clock = new FixedClock(START);
  const app = useService({ RATE_LIMIT_REQUESTS: '1', RATE_LIMIT_STORE: 'memory' }, { generator: new FakeReportGenerator(), clock });

  it('a 429 rate_limit_exceeded of a late body dates resetAt from when the limit was checked, as Retry-After counts (spec 2.5), not from step 1', async () => {
    const customer = await createCustomerFixture({ monthlyLimit: 10 });
    const first = await send(app.service.url, 'POST', '/v1/evidence/reports', { body: bodyNumber(1), headers: { 'x-api-key': customer.apiKey } });
    expect(first.status).to.equal(201);
    // The second request's body arrives 30 s (on the service's clock) after its headers.
    const checkedAt = new Date(Date.parse(START) + 30_000);
    const answer = await postWithLateBody(app.service.url, customer, bodyNumber(2), () => clock.set(checkedAt));
    expect(answer.slice(0, 12)).to.equal('HTTP/1.1 429');
    const retryAfter = Number(/\r\nretry-after: (\d+)\r\n/i.exec(answer)?.[1]);
    const { error } = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { error: { code: string; details: { resetAt: string; retryAfterSeconds: number } } };
    expect(error.code).to.equal('rate_limit_exceeded');
    expect(error.details.retryAfterSeconds).to.equal(retryAfter);
    const untilReset = (Date.parse(error.details.resetAt) - checkedAt.getTime()) / 1000;
    expect(untilReset, 'resetAt - the instant of step 3, against Retry-After').to.be.within(retryAfter - 1.5, retryAfter + 0.5);
  });
});
