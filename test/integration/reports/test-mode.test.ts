// Test mode (R53) and reading a report back (R54), against the real service and database:
// test keys run the whole pipeline on a bucket, namespace and ledger of their own with the
// offline generator; every error trigger fails its own step with its usual answer and leaves
// nothing behind; a report is read back by its owner, in its mode, and by nobody else.
import { expect } from 'chai';
import { createKey } from '../../../src/admin/keys.ts';
import { ERROR_CATALOGUE, type ErrorCode } from '../../../src/errors/catalogue.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { ERROR_TRIGGERS } from '../../../src/reports/test-mode/error-triggers.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { expectApiError } from '../../support/expect-api-error.ts';
import { send, type TestResponse } from '../../support/http-client.ts';
import { serviceEnv } from '../../support/reports.ts';
import { startTestService, type TestService } from '../../support/service.ts';

const RATE_LIMIT = 5;
const BODY = { context: 'property_maintenance', evidence: { text: 'Water is dripping from the trap under the kitchen sink.' } };
const trigger = (code: string, images = false) => ({
  context: 'damage_report',
  evidence: { text: `CI check ers_test_trigger:${code} please`, ...(images ? { images: [{ url: 'https://img.example/door.png' }] } : {}) },
});

interface Keys {
  customerId: string;
  live: string;
  test: string;
}

/** Units, reports and claims of one customer, per mode. */
async function totals(customerId: string, mode: 'live' | 'test') {
  const em = await testEm();
  const [row] = await em.execute<{ reports: string; units: string; claims: string }[]>(
    `select (select count(*) from evidence_report where customer_id = ? and mode = ?) as reports,
            (select coalesce(sum(units), 0) from usage_record where customer_id = ? and mode = ?) as units,
            (select count(*) from idempotency_record where customer_id = ? and mode = ? and status = 'in_progress') as claims`,
    [customerId, mode, customerId, mode, customerId, mode],
  );
  return { reports: Number(row?.reports), units: Number(row?.units), claims: Number(row?.claims) };
}

describe('test mode (R53) and GET /v1/evidence/reports/{id} (R54)', () => {
  const generator = new FakeReportGenerator();
  const imageFetcher = new FakeImageFetcher();
  let service: TestService;
  const post = (key: string, body: unknown, headers: Record<string, string> = {}) =>
    send(service.url, 'POST', '/v1/evidence/reports', { body, headers: { 'x-api-key': key, ...headers } });
  const usage = (key: string) => send<{ usage: { used: number; limit: number }[] }>(service.url, 'GET', '/v1/usage/current', { headers: { 'x-api-key': key } });
  const read = (key: string, id: string) => send(service.url, 'GET', `/v1/evidence/reports/${encodeURIComponent(id)}`, { headers: { 'x-api-key': key } });
  /** The path segment sent as it is, malformed escapes included. */
  const readRaw = (key: string, segment: string) => send(service.url, 'GET', `/v1/evidence/reports/${segment}`, { headers: { 'x-api-key': key } });

  async function keys(input: Parameters<typeof createCustomerFixture>[0] = {}): Promise<Keys> {
    const live = await createCustomerFixture(input);
    const test = await createKey(await testEm(), { customerId: live.customerId, mode: 'test' });
    return { customerId: live.customerId, live: live.apiKey, test: test.apiKey };
  }

  before(async () => {
    // The configured generator is a stand-in for a paid one: test mode must never call it.
    service = await startTestService(await serviceEnv({ RATE_LIMIT_REQUESTS: String(RATE_LIMIT) }), { generator, imageFetcher });
  });
  after(() => service.close());

  describe('test keys (R53)', () => {
    it('are ers_test_ + 40 base62; a test report is 201 with ers-mode: test, deterministic, from the offline generator, never the configured one', async () => {
      const { customerId, test, live } = await keys();
      expect(test).to.match(/^ers_test_[0-9A-Za-z]{40}$/);
      const calls = generator.callCount;
      const first = await post(test, BODY);
      const second = await post(test, BODY);
      expect(first.status, first.text).to.equal(201);
      expect(first.headers['ers-mode']).to.equal('test');
      const result = (res: TestResponse) => (res.body as { result: unknown }).result;
      expect(result(second)).to.deep.equal(result(first));
      expect((first.body as { id: string }).id).not.to.equal((second.body as { id: string }).id);
      expect(generator.callCount).to.equal(calls);
      expect((await post(live, BODY)).headers).not.to.have.property('ers-mode');
      expect(generator.callCount).to.equal(calls + 1);
      expect(await totals(customerId, 'test')).to.deep.equal({ reports: 2, units: 2, claims: 0 });
      expect(await totals(customerId, 'live')).to.deep.equal({ reports: 1, units: 1, claims: 0 });
    });

    it('have a ledger of their own against the same plan limit: GET usage shows it, and it never counts against the live quota', async () => {
      const { test, live } = await keys({ monthlyLimit: 1 });
      expect((await post(test, BODY)).status).to.equal(201);
      const testUsage = await usage(test);
      expect(testUsage.headers['ers-mode']).to.equal('test');
      expect(testUsage.body.usage[0]).to.include({ used: 1, limit: 1 });
      expect((await usage(live)).body.usage[0]).to.include({ used: 0, limit: 1 });
      expectApiError(await post(test, BODY), 'quota_exceeded');
      expect((await post(live, BODY)).status).to.equal(201);
      expectApiError(await post(live, BODY), 'quota_exceeded');
      expect((await usage(test)).body.usage[0]).to.include({ used: 1 });
    });

    it('have a rate-limit bucket of their own', async () => {
      const { test, live } = await keys();
      for (let i = 0; i < RATE_LIMIT; i++) expect((await post(test, BODY)).status).to.equal(201);
      const limited = await post(test, BODY);
      expectApiError(limited, 'rate_limit_exceeded');
      expect(limited.headers['ers-mode']).to.equal('test');
      expect((await post(live, BODY)).status).to.equal(201);
    });

    it('have an idempotency namespace of their own: one Idempotency-Key, two requests, two reports, each replayed in its mode', async () => {
      const { test, live } = await keys();
      const key = { 'idempotency-key': 'same-key-both-modes' };
      const other = { context: 'field_inspection', evidence: { text: 'A loose handrail on the stairs.' } };
      const liveRes = await post(live, BODY, key);
      const testRes = await post(test, other, key);
      expect([liveRes.status, testRes.status]).to.deep.equal([201, 201]);
      const replayLive = await post(live, BODY, key);
      const replayTest = await post(test, other, key);
      expect(replayLive.headers['idempotent-replayed']).to.equal('true');
      expect((replayLive.body as { id: string }).id).to.equal((liveRes.body as { id: string }).id);
      expect((replayTest.body as { id: string }).id).to.equal((testRes.body as { id: string }).id);
    });

    it('admin: key create --mode test and bootstrap --mode test make test keys', async () => {
      const { customerId, apiKey } = await createCustomerFixture({ mode: 'test' });
      expect(apiKey).to.match(/^ers_test_/);
      expect((await post(apiKey, BODY)).headers['ers-mode']).to.equal('test');
      expect(await totals(customerId, 'live')).to.deep.equal({ reports: 0, units: 0, claims: 0 });
    });
  });

  describe('error triggers (R53)', () => {
    it('cover every code a report creation can get after authentication, and nothing else', () => {
      const expected = (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter(
        (code) =>
          !['missing_api_key', 'invalid_api_key', 'api_key_authentication_unavailable', 'not_found', 'method_not_allowed'].includes(code) &&
          !['current_usage_access_denied', 'current_usage_unavailable', 'evidence_report_not_found'].includes(code),
      );
      expect([...ERROR_TRIGGERS.keys()].sort()).to.deep.equal(expected.sort());
    });

    for (const [code, step] of ERROR_TRIGGERS) {
      it(`ers_test_trigger:${code} fails at step ${step} with ${ERROR_CATALOGUE[code].status}, its message and details; nothing recorded, the key released`, async () => {
        const { customerId, test } = await keys();
        const images = step === '7_fetch_images';
        const fetches = imageFetcher.calls.length;
        const res = await post(test, trigger(code, images), { 'idempotency-key': `trigger-${code}` });
        expectApiError(res, code);
        expect(res.headers['ers-mode']).to.equal('test');
        const details = (res.body as { error: { details?: Record<string, unknown> } }).error.details;
        if (code === 'rate_limit_exceeded') {
          expect(details).to.have.all.keys('limit', 'remaining', 'resetAt', 'retryAfterSeconds');
          expect(details).to.include({ limit: RATE_LIMIT, remaining: 0 });
          expect(Number(res.headers['retry-after'])).to.be.at.least(1).and.equal(details?.retryAfterSeconds);
        } else {
          expect(res.headers).not.to.have.property('retry-after');
        }
        if (code === 'quota_exceeded') {
          expect(details).to.deep.include({ operation: 'evidence_report', limit: 1000, used: 1000, remaining: 0, requestedUnits: 1 });
          expect(details?.resetAt).to.be.a('string');
        }
        // Steps before the trigger's ran, the triggered one did not: no image is fetched by a trigger at step 7.
        expect(imageFetcher.calls.length).to.equal(fetches);
        expect(await totals(customerId, 'test')).to.deep.equal({ reports: 0, units: 0, claims: 0 });
        // R14: the key is free again: the same key with the request without the trigger succeeds.
        expect((await post(test, BODY, { 'idempotency-key': `trigger-${code}` })).status).to.equal(201);
      });
    }

    it('a triggered rate_limit_exceeded is its own bucket\'s refusal: that window\'s reset, and it counts in the window as every request at step 3 does (R20)', async () => {
      const { test } = await keys();
      const field = (res: TestResponse, name: 'r' | 't') => Number(new RegExp(`;${name}=(\\d+)`).exec(String(res.headers.ratelimit))?.[1]);
      const first = await post(test, BODY);
      expect(first.status).to.equal(201);
      expect(field(first, 'r')).to.equal(RATE_LIMIT - 1);
      const firstReset = Date.now() + field(first, 't') * 1000;
      const limited = await post(test, trigger('rate_limit_exceeded'));
      expectApiError(limited, 'rate_limit_exceeded');
      expect(field(limited, 'r')).to.equal(0);
      // The window the first request opened, not one of the clock's own.
      const resetAt = Date.parse((limited.body as { error: { details: { resetAt: string } } }).error.details.resetAt);
      expect(Math.abs(resetAt - firstReset), 'the same window').to.be.below(2_000);
      expect(Number(limited.headers['retry-after'])).to.equal(field(limited, 't'));
      const after = await post(test, BODY);
      expect(after.status).to.equal(201);
      expect(field(after, 'r'), 'the triggered request took its point').to.equal(RATE_LIMIT - 3);
    });

    it('a trigger of a later step still passes steps 1-6 for real: entitlement and quota answer first', async () => {
      const unentitled = await keys({ noEntitlement: true });
      expectApiError(await post(unentitled.test, trigger('report_generation_unavailable')), 'product_not_entitled');
      const exhausted = await keys({ monthlyLimit: 0 });
      expectApiError(await post(exhausted.test, trigger('evidence_report_write_failed')), 'quota_exceeded');
    });

    it('with a live key the same text is ordinary evidence', async () => {
      const { customerId, live } = await keys();
      const res = await post(live, trigger('report_generation_unavailable'));
      expect(res.status, res.text).to.equal(201);
      expect(await totals(customerId, 'live')).to.include({ reports: 1, units: 1 });
    });
  });

  describe('GET /v1/evidence/reports/{id} (R54)', () => {
    it('answers 200 with the body of the 201 and cache-control: no-store, to its owner in its mode, and is free', async () => {
      const { live, test } = await keys();
      const created = await post(live, BODY);
      const id = (created.body as { id: string }).id;
      const res = await read(live, id);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal(created.body);
      expect(res.headers['cache-control']).to.equal('no-store');
      const testCreated = await post(test, BODY);
      const testRead = await read(test, (testCreated.body as { id: string }).id);
      expect(testRead.body).to.deep.equal(testCreated.body);
      expect(testRead.headers['ers-mode']).to.equal('test');
      expect((await usage(live)).body.usage[0]).to.include({ used: 1 });
    });

    it('an unknown id, another customer\'s, the other mode\'s, another spelling and a malformed one get the same 404 evidence_report_not_found', async () => {
      const owner = await keys();
      const stranger = await keys();
      const id = ((await post(owner.live, BODY)).body as { id: string }).id;
      expect(id, 'the 201 writes the id in lower case').to.match(/^[0-9a-f-]{36}$/);
      const answers = [
        await read(owner.live, '6f1c1f3e-1b5a-4a4e-9d55-3f6a0a1b2c3d'),
        await read(stranger.live, id),
        await read(owner.test, id),
        await read(owner.live, 'not-a-report-id'),
        // The contract: the id "as the 201 returned it"; any other value, whatever its form, is 404.
        await read(owner.live, id.toUpperCase()),
        // Escapes that do not decode are read literally: a text that names nothing, not a 500.
        await readRaw(owner.live, '%E0%A4%A'),
        await readRaw(owner.live, '%ZZ'),
        await readRaw(owner.live, `${id}%`),
      ];
      for (const res of answers) expectApiError(res, 'evidence_report_not_found', null);
      const withoutRequestId = (res: TestResponse) => ({ ...(res.body as { error: object }).error, requestId: undefined });
      for (const res of answers) expect(withoutRequestId(res)).to.deep.equal(withoutRequestId(answers[0] as TestResponse));
    });

    it('needs the product entitlement (403) and a valid key (401), and is not counted by the creation rate limit', async () => {
      const unentitled = await keys({ noEntitlement: true });
      expectApiError(await read(unentitled.live, '6f1c1f3e-1b5a-4a4e-9d55-3f6a0a1b2c3d'), 'product_not_entitled');
      expectApiError(await read('ers_live_0000000000000000000000000000000000000000', 'x'), 'invalid_api_key');
      const { live } = await keys();
      const id = ((await post(live, BODY)).body as { id: string }).id;
      for (let i = 0; i < RATE_LIMIT + 2; i++) expect((await read(live, id)).status).to.equal(200);
      expect((await post(live, BODY)).status).to.equal(201);
    });
  });
});
