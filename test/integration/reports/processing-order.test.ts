// The processing order of spec section 1 (rulings R5, R13, R20, R29): a request that breaks two
// rules gets the earlier step's error, and a later step never runs: no body read before
// authentication, no rate-limit count before step 3, no claim before step 5, no fetch before
// the quota check (counted at a real image host on loopback).
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { setEntitlement } from '../../../src/admin/entitlements.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { send } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';
import { ImageServer, serve } from '../../support/images/image-server.ts';
import { bodyNumber, caller, customerTotals, REPORTS_PATH, VALID_BODY, type Caller } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const BAD_JSON = '{"context": "property_maintenance", "evidence": {';
const JSON_TYPE = { 'content-type': 'application/json' };

describe('POST /v1/evidence/reports: processing order (spec section 1, R5, R20, R29)', () => {
  const generator = new FakeReportGenerator();
  let images: ImageServer;

  before(async () => {
    images = await new ImageServer({ '/evidence.png': serve(await readFile(new URL('../images/fixtures/tiny.png', import.meta.url)), 'image/png') }).listen();
  });
  const env = { REMOTE_IMAGE_ALLOW_CIDRS: '127.0.0.1/32' };
  const app = useService(env, { generator });
  /** The same wiring with a rate limit of 2 per window. */
  const limited = useService({ ...env, RATE_LIMIT_REQUESTS: '2' }, { generator });
  after(async () => {
    await images?.close();
  });

  /** A customer of its own on the limited service, already at its rate limit. */
  async function overTheRateLimit(input: Parameters<typeof createCustomerFixture>[0] = {}): Promise<Caller> {
    const client = await limited.newCaller(input);
    for (const n of [1, 2]) await client.create(bodyNumber(n));
    return client;
  }

  it('missing x-api-key and bad JSON: 401 missing_api_key (step 1 before step 2, R5)', async () => {
    const res = await send(app.service.url, 'POST', REPORTS_PATH, { raw: BAD_JSON, headers: JSON_TYPE });
    expectApiError(res, 'missing_api_key');
  });

  it('an unknown x-api-key and bad JSON: 401 invalid_api_key (R5)', async () => {
    const res = await send(app.service.url, 'POST', REPORTS_PATH, { raw: BAD_JSON, headers: { ...JSON_TYPE, 'x-api-key': 'ers_live_notAKeyOfAnyone0123456789abcdef' } });
    expectApiError(res, 'invalid_api_key');
  });

  it('missing x-api-key, a wrong content type and a bad Idempotency-Key: 401 missing_api_key (R5)', async () => {
    const res = await send(app.service.url, 'POST', REPORTS_PATH, { raw: 'x', headers: { 'content-type': 'text/plain', 'idempotency-key': ' ' } });
    expectApiError(res, 'missing_api_key');
  });

  it('a wrong content type and a bad Idempotency-Key: 400 invalid_request_payload (R29: content type first)', async () => {
    const client = await app.newCaller();
    const res = await client.create(undefined, { raw: JSON.stringify(VALID_BODY), headers: { 'content-type': 'text/plain', 'idempotency-key': ' ' } });
    expectApiError(res, 'invalid_request_payload', { pointer: '', rule: 'contentType' });
  });

  it('a bad Idempotency-Key and bad JSON: 400 invalid_idempotency_key (R29: the header before the body)', async () => {
    const client = await app.newCaller();
    expectApiError(await client.create(undefined, { raw: BAD_JSON, headers: { ...JSON_TYPE, 'idempotency-key': 'k'.repeat(256) } }), 'invalid_idempotency_key');
  });

  it('bad JSON while over the rate limit: 400 invalid_json (step 2 before step 3)', async () => {
    const client = await overTheRateLimit();
    expectApiError(await client.create(undefined, { raw: BAD_JSON, headers: JSON_TYPE }), 'invalid_json');
  });

  it('an over-long text while over the rate limit: 422 invalid_evidence_report_input (R29: all of step 2 before step 3)', async () => {
    const client = await overTheRateLimit();
    const res = await client.create({ context: 'property_maintenance', evidence: { text: 'x'.repeat(20_001) } });
    expectApiError(res, 'invalid_evidence_report_input', { pointer: '/evidence/text', rule: 'maxLength' });
  });

  it('requests rejected at step 2 do not count against the rate limit (R20: requests that reach step 3)', async () => {
    const client = await limited.newCaller();
    expectApiError(await client.create(undefined, { raw: BAD_JSON, headers: JSON_TYPE }), 'invalid_json');
    expectApiError(await client.create({ context: 'space_travel', evidence: { text: 'x' } }), 'invalid_request_payload');
    expectApiError(await client.create(bodyNumber(1), { headers: { 'idempotency-key': '' } }), 'invalid_idempotency_key');
    expectApiError(await client.create({ context: 'property_maintenance', evidence: { text: 'x'.repeat(20_001) } }), 'invalid_evidence_report_input');
    expect((await client.create(bodyNumber(1))).status).to.equal(201);
    expect((await client.create(bodyNumber(2))).status).to.equal(201);
    expectApiError(await client.create(bodyNumber(3)), 'rate_limit_exceeded');
  });

  it('over the rate limit and not entitled: 429 rate_limit_exceeded (step 3 before step 4)', async () => {
    const client = await overTheRateLimit({ noEntitlement: true });
    expectApiError(await client.create(bodyNumber(3)), 'rate_limit_exceeded');
  });

  it('requests refused at step 4 still counted at step 3 (R20)', async () => {
    const client = await limited.newCaller({ noEntitlement: true });
    expectApiError(await client.create(bodyNumber(1)), 'product_not_entitled');
    expectApiError(await client.create(bodyNumber(2)), 'product_not_entitled');
    expectApiError(await client.create(bodyNumber(3)), 'rate_limit_exceeded');
  });

  it('not entitled and a bad Idempotency-Key: 400 invalid_idempotency_key (step 2 before step 4)', async () => {
    const client = await app.newCaller({ noEntitlement: true });
    expectApiError(await client.create(bodyNumber(1), { headers: { 'idempotency-key': ['a', 'b'] } }), 'invalid_idempotency_key');
  });

  it('not entitled and an idempotency conflict: 403 product_not_entitled (step 4 before step 5)', async () => {
    const customer = await createCustomerFixture();
    const client = caller(app.service.url, customer, app.ledger);
    expect((await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'k' } })).status).to.equal(201);
    await setEntitlement(await testEm(), { customerId: customer.customerId, entitled: false });
    expectApiError(await client.create(bodyNumber(2), { headers: { 'idempotency-key': 'k' } }), 'product_not_entitled');
  });

  it('not entitled and without a plan: 403 product_not_entitled (step 4 before step 6)', async () => {
    const client = await app.newCaller({ noEntitlement: true, noPlan: true });
    expectApiError(await client.create(bodyNumber(1)), 'product_not_entitled');
  });

  it('an idempotency conflict with the quota exhausted: 409 idempotency_conflict (step 5 before step 6)', async () => {
    const client = await app.newCaller({ monthlyLimit: 1 });
    expect((await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'k' } })).status).to.equal(201);
    expectApiError(await client.create(bodyNumber(2), { headers: { 'idempotency-key': 'k' } }), 'idempotency_conflict');
  });

  it('the quota exhausted and an image URL: 429 quota_exceeded and the image host sees no connection (step 6 before step 7)', async () => {
    const client = await app.newCaller({ monthlyLimit: 1 });
    const withImage = { context: 'damage_report', evidence: { images: [{ url: images.url('/evidence.png') }] } };
    // Control: with a unit left the image is fetched from this host.
    const before = images.connections;
    expect((await client.create(withImage)).status).to.equal(201);
    expect(images.connections).to.equal(before + 1);
    const calls = generator.callCount;
    const res = await client.create(withImage, { headers: { 'idempotency-key': 'downloader' } });
    expectApiError(res, 'quota_exceeded');
    expect(images.connections, 'no connection to the image host').to.equal(before + 1);
    expect(generator.callCount).to.equal(calls);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });

  it('without a plan and an image URL: 403 quota_access_denied and no connection to the image host (step 6 before step 7)', async () => {
    const client = await app.newCaller({ noPlan: true });
    const before = images.connections;
    const res = await client.create({ context: 'damage_report', evidence: { images: [{ url: images.url('/evidence.png') }] } });
    expectApiError(res, 'quota_access_denied');
    expect(images.connections).to.equal(before);
  });
});
