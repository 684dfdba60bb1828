// The technical rate limit (spec 2.5 and 4.1, ruling R20) on each store: per customer, the
// requests that reach step 3 in a fixed window; over it, 429 rate_limit_exceeded with
// Retry-After equal to details.retryAfterSeconds; 201s carry RateLimit and RateLimit-Policy.
// A limited request generates nothing and stores nothing.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { createKey } from '../../../src/admin/keys.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, caller, customerTotals, type ErrorBody } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const LIMIT = 2;
const WINDOW_SECONDS = 60;
const STORES = [
  { store: 'postgres', env: {} },
  { store: 'memory', env: {} },
  { store: 'redis', env: { REDIS_URL: 'redis://127.0.0.1:6379' } },
] as const;

for (const { store, env } of STORES) {
  describe(`POST /v1/evidence/reports: technical rate limit on the ${store} store (spec 2.5, R20)`, () => {
    const generator = new FakeReportGenerator();
    const limits = { RATE_LIMIT_REQUESTS: String(LIMIT), RATE_LIMIT_WINDOW_SECONDS: String(WINDOW_SECONDS), RATE_LIMIT_STORE: store };
    const app = useService({ ...limits, ...env }, { generator });

    it('201s carry RateLimit-Policy and a RateLimit that counts down (R20)', async () => {
      const client = await app.newCaller();
      const first = await client.create(bodyNumber(1));
      const second = await client.create(bodyNumber(2));
      expect([first.status, second.status]).to.deep.equal([201, 201]);
      for (const res of [first, second]) expect(res.headers['ratelimit-policy']).to.equal(`"per-customer";q=${LIMIT};w=${WINDOW_SECONDS}`);
      expect(first.headers.ratelimit).to.match(/^"per-customer";r=1;t=([1-9]\d*)$/);
      expect(second.headers.ratelimit).to.match(/^"per-customer";r=0;t=([1-9]\d*)$/);
    });

    it('the request over the limit is 429 rate_limit_exceeded with Retry-After = details.retryAfterSeconds (spec 2.5, 4.1)', async () => {
      const client = await app.newCaller();
      for (const n of [1, 2]) expect((await client.create(bodyNumber(n))).status).to.equal(201);
      const calls = generator.callCount;
      const before = Date.now();
      const res = await client.create(bodyNumber(3), { headers: { 'idempotency-key': 'limited' } });
      expectApiError(res, 'rate_limit_exceeded');
      const details = (res.body as ErrorBody).error.details as Record<string, unknown>;
      expect(Object.keys(details).sort()).to.deep.equal(['limit', 'remaining', 'resetAt', 'retryAfterSeconds']);
      expect(details).to.include({ limit: LIMIT, remaining: 0 });
      const retryAfter = res.headers['retry-after'];
      expect(retryAfter).to.match(/^[1-9]\d*$/);
      expect(details.retryAfterSeconds).to.equal(Number(retryAfter));
      expect(details.retryAfterSeconds).to.be.within(1, WINDOW_SECONDS);
      // resetAt: an RFC 3339 UTC instant within the window (R27).
      expect(details.resetAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      const resetAt = Date.parse(details.resetAt as string);
      expect(resetAt).to.be.within(before - 1000, Date.now() + WINDOW_SECONDS * 1000 + 1000);
      // Nothing of the limited request: no generation, no report, no unit, no claim.
      expect(generator.callCount).to.equal(calls);
      expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 2, units: 2, claims: 0 });
    });

    it('the limit is per customer: another customer is not limited (R20)', async () => {
      const limited = await app.newCaller();
      for (const n of [1, 2]) await limited.create(bodyNumber(n));
      expectApiError(await limited.create(bodyNumber(3)), 'rate_limit_exceeded');
      const other = await app.newCaller();
      expect((await other.create(bodyNumber(1))).status).to.equal(201);
    });

    it('two API keys of one customer share its limit (R20: per customer)', async () => {
      const customer = await createCustomerFixture();
      const { apiKey: secondKey } = await createKey(await testEm(), { customerId: customer.customerId });
      const viaFirst = caller(app.service.url, customer, app.ledger);
      const viaSecond = caller(app.service.url, { customerId: customer.customerId, apiKey: secondKey }, app.ledger);
      expect((await viaFirst.create(bodyNumber(1))).status).to.equal(201);
      expect((await viaSecond.create(bodyNumber(2))).status).to.equal(201);
      expectApiError(await viaFirst.create(bodyNumber(3)), 'rate_limit_exceeded');
      expectApiError(await viaSecond.create(bodyNumber(4)), 'rate_limit_exceeded');
    });
  });
}
