// Conformance through a validator the project did not write: the
// integration traffic, every operation and every error class a client can provoke from
// outside, goes through Stoplight Prism 5 in proxy mode in front of the real service, and any
// violation Prism reports fails the test. This file: requests VALID under the contract.
//
// How Prism reports (prism-http-server 5.x): in proxy mode it validates the request it
// receives and the response the upstream returns, and lists every finding in the
// `sl-violations` response header (a JSON array whose `location` starts with "request" or
// "response") and in its log ("Violation: ..."). With `--errors`, an invalid request is not
// forwarded (Prism answers 401/422 application/problem+json itself) and an invalid response is
// replaced by Prism's own 500 problem document ("Request terminated with error" in the log).
//
// Decision, valid vs deliberately invalid requests:
// - Valid requests (201, replay, 200, and every error a valid request can get: 401 for an
//   unknown key, 400 for an oversized body, 403, 409, 422, 429, 502, 503) go through a proxy
//   started with `--errors` (this file): the answer must be the service's own, never a Prism
//   problem document, with no `sl-violations` header at all (request or response, error or
//   warning), and Prism's log must have no violation line.
// - Requests invalid on purpose cannot pass a `--errors` proxy: Prism would answer them itself
//   and the service's answer would never be checked. prism-invalid-requests.test.ts sends them
//   through a proxy without `--errors`, which forwards them and still validates the response:
//   violations under "request" are Prism agreeing that the request is bad (expected) and
//   violations under "response" must be zero, in the header and in the log.
// - Prism cannot forward a body it cannot parse as JSON, nor a repeated header (node:http joins
//   it). For invalid_json and a repeated x-api-key or Idempotency-Key, Prism gets a valid request
//   and the tamper shim behind it (tamper-shim.ts) hands the service the raw bytes or the
//   repeated header; Prism then validates the service's answer like any other.
// - prism-detects-violations.test.ts shows that each of these signals fires on a lying upstream.
// Not sent through Prism: 404 not_found and 405 method_not_allowed (no contract operation, so
// Prism has no schema to check them against; the suite's client validator checks every
// response anyway) and 503s that need a broken database or store (no client can provoke them).
import { expect } from 'chai';
import { createKey } from '../../../src/admin/keys.ts';
import { ERROR_TRIGGERS } from '../../../src/reports/test-mode/error-triggers.ts';
import { createCustomerFixture, testEm, type CustomerFixture } from '../../support/database.ts';
import { GENERATOR_MARKERS, IMAGE_URL, REJECTED_IMAGE_URL, UNAVAILABLE_IMAGE_URL } from './conformance-service.ts';
import { REPORTS, USAGE, expectCode, startPrismRig, textBody, withKey, type PrismRig } from './prism-rig.ts';
import { tamperHeader } from './tamper-shim.ts';

const RATE_LIMIT = 3;

describe('Prism --errors proxy, requests valid under the contract: no violation on any operation or error class (R9)', function () {
  this.timeout(60_000);
  let rig: PrismRig;

  before(async function () {
    rig = await startPrismRig({ errors: true, requestMayBeFlagged: false }, { RATE_LIMIT_REQUESTS: String(RATE_LIMIT) });
  });

  after(async function () {
    try {
      await rig?.checkLog();
    } finally {
      await rig?.close();
    }
  });

  it('201 for text, text with images and images only (spec 2.3)', async function () {
    const customer = await createCustomerFixture();
    const bodies = [
      textBody('Water is dripping from the ceiling of the second-floor hallway.', { language: 'en' }),
      { context: 'damage_report', evidence: { text: 'Cracked glass on the front door.', images: [{ url: IMAGE_URL }] } },
      { context: 'delivery_confirmation', evidence: { images: [{ url: IMAGE_URL }, { url: 'HTTPS://images.example.org/parcel.png' }] } },
    ];
    for (const body of bodies) {
      const res = await rig.send('POST', REPORTS, { body, headers: withKey(customer) });
      expect(res.status, res.text).to.equal(201);
    }
  });

  it('201 with an Idempotency-Key, then the replayed 201 with idempotent-replayed: true (R13)', async function () {
    const customer = await createCustomerFixture();
    const headers = withKey(customer, { 'idempotency-key': 'conformance-replay' });
    const first = await rig.send('POST', REPORTS, { body: textBody('Broken lock on the back gate.'), headers });
    const replay = await rig.send('POST', REPORTS, { body: textBody('Broken lock on the back gate.'), headers });
    expect([first.status, replay.status]).to.deep.equal([201, 201]);
    expect(replay.headers['idempotent-replayed']).to.equal('true');
  });

  it('200 for the current usage of a customer with usage (spec 2.5)', async function () {
    const customer = await createCustomerFixture();
    await rig.send('POST', REPORTS, { body: textBody('Light flickers in the stairwell.'), headers: withKey(customer) });
    expect((await rig.send('GET', USAGE, { headers: withKey(customer) })).status).to.equal(200);
  });

  it('401 invalid_api_key for an unknown key and for a repeated x-api-key header (R5)', async function () {
    const customer = await createCustomerFixture();
    const unknown = { 'x-api-key': 'ers_live_unknown' };
    const repeated = withKey(customer, tamperHeader({ repeat: { 'x-api-key': [customer.apiKey, customer.apiKey] } }));
    for (const headers of [unknown, repeated]) {
      expectCode(await rig.send('POST', REPORTS, { body: textBody('x'), headers }), 'invalid_api_key');
      expectCode(await rig.send('GET', USAGE, { headers }), 'invalid_api_key');
    }
  });

  it('400 invalid_json for malformed JSON and for bytes that are not UTF-8 (spec 7)', async function () {
    const customer = await createCustomerFixture();
    for (const raw of [Buffer.from('{"context": "damage_report",'), Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])]) {
      const headers = withKey(customer, tamperHeader({ body: raw }));
      expectCode(await rig.send('POST', REPORTS, { body: textBody('Valid for Prism.'), headers }), 'invalid_json');
    }
  });

  it('400 invalid_request_payload for a body over the size limit (R6)', async function () {
    const customer = await createCustomerFixture();
    const res = await rig.send('POST', REPORTS, { body: textBody('a'.repeat(1024 * 1024 + 10)), headers: withKey(customer) });
    expectCode(res, 'invalid_request_payload');
  });

  it('400 invalid_idempotency_key for a repeated Idempotency-Key header (R11)', async function () {
    const customer = await createCustomerFixture();
    const headers = withKey(customer, tamperHeader({ repeat: { 'idempotency-key': ['k-1', 'k-2'] } }));
    expectCode(await rig.send('POST', REPORTS, { body: textBody('x'), headers }), 'invalid_idempotency_key');
  });

  it('403 product_not_entitled, quota_access_denied and current_usage_access_denied (R18, R10)', async function () {
    const notEntitled = await createCustomerFixture({ noEntitlement: true });
    const noPlan = await createCustomerFixture({ noPlan: true });
    const hidden = await createCustomerFixture({ usageHidden: true });
    expectCode(await rig.send('POST', REPORTS, { body: textBody('x'), headers: withKey(notEntitled) }), 'product_not_entitled');
    expectCode(await rig.send('POST', REPORTS, { body: textBody('x'), headers: withKey(noPlan) }), 'quota_access_denied');
    expectCode(await rig.send('GET', USAGE, { headers: withKey(noPlan) }), 'current_usage_access_denied');
    expectCode(await rig.send('GET', USAGE, { headers: withKey(hidden) }), 'current_usage_access_denied');
  });

  it('409 idempotency_conflict for the same key with a different body (R30)', async function () {
    const customer = await createCustomerFixture();
    const headers = withKey(customer, { 'idempotency-key': 'conformance-conflict' });
    expect((await rig.send('POST', REPORTS, { body: textBody('First request.'), headers })).status).to.equal(201);
    expectCode(await rig.send('POST', REPORTS, { body: textBody('Second, different request.'), headers }), 'idempotency_conflict');
  });

  it('409 idempotency_in_progress while the original is still generating (R14)', async function () {
    const customer = await createCustomerFixture();
    const headers = withKey(customer, { 'idempotency-key': 'conformance-in-progress' });
    const body = textBody(`Slow generation ${GENERATOR_MARKERS.slow}.`);
    const startedBefore = rig.service.generator.started;
    const original = rig.send('POST', REPORTS, { body, headers });
    const deadline = Date.now() + 10_000;
    while (rig.service.generator.started === startedBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(rig.service.generator.started, 'the original request reached generation').to.be.greaterThan(startedBefore);
    expectCode(await rig.send('POST', REPORTS, { body, headers }), 'idempotency_in_progress');
    expect((await original).status).to.equal(201);
  });

  it('422 invalid_evidence_report_input for text, image count and URL length over the unpublished limits (R7)', async function () {
    const customer = await createCustomerFixture();
    const overLimits = [
      textBody('a'.repeat(20_001)),
      { context: 'field_inspection', evidence: { images: Array.from({ length: 9 }, (_, i) => ({ url: `${IMAGE_URL}?n=${i}` })) } },
      { context: 'field_inspection', evidence: { images: [{ url: `${IMAGE_URL}?q=${'a'.repeat(2_100)}` }] } },
    ];
    for (const body of overLimits) expectCode(await rig.send('POST', REPORTS, { body, headers: withKey(customer) }), 'invalid_evidence_report_input');
  });

  it('422 remote_evidence_image_rejected and 503 remote_evidence_image_unavailable (R23)', async function () {
    const customer = await createCustomerFixture();
    const images = (url: string) => ({ context: 'damage_report', evidence: { images: [{ url: IMAGE_URL }, { url }] } });
    expectCode(await rig.send('POST', REPORTS, { body: images(REJECTED_IMAGE_URL), headers: withKey(customer) }), 'remote_evidence_image_rejected');
    expectCode(await rig.send('POST', REPORTS, { body: images(UNAVAILABLE_IMAGE_URL), headers: withKey(customer) }), 'remote_evidence_image_unavailable');
  });

  it('429 quota_exceeded without Retry-After once the quota is used, the replay still 201 (R13, R17, R31)', async function () {
    const customer = await createCustomerFixture({ monthlyLimit: 1 });
    const headers = withKey(customer, { 'idempotency-key': 'conformance-quota' });
    expect((await rig.send('POST', REPORTS, { body: textBody('The last unit.'), headers })).status).to.equal(201);
    const exceeded = await rig.send('POST', REPORTS, { body: textBody('One too many.'), headers: withKey(customer) });
    expectCode(exceeded, 'quota_exceeded');
    expect(exceeded.headers).not.to.have.property('retry-after');
    const replay = await rig.send('POST', REPORTS, { body: textBody('The last unit.'), headers });
    expect([replay.status, replay.headers['idempotent-replayed']]).to.deep.equal([201, 'true']);
  });

  it('429 rate_limit_exceeded with Retry-After past the per-customer limit (R20, R31)', async function () {
    const customer = await createCustomerFixture();
    for (let n = 0; n < RATE_LIMIT; n += 1) {
      expect((await rig.send('POST', REPORTS, { body: textBody(`Request ${n}.`), headers: withKey(customer) })).status).to.equal(201);
    }
    const limited = await rig.send('POST', REPORTS, { body: textBody('One more.'), headers: withKey(customer) });
    expectCode(limited, 'rate_limit_exceeded');
    expect(limited.headers['retry-after']).to.match(/^[1-9]\d*$/);
  });

  it('502 invalid_generated_report and report_generation_failed, 503 report_generation_unavailable (R24)', async function () {
    const customer = await createCustomerFixture();
    const post = (marker: string) => rig.send('POST', REPORTS, { body: textBody(`Generator test ${marker}.`), headers: withKey(customer) });
    expectCode(await post(GENERATOR_MARKERS.invalid), 'invalid_generated_report');
    expectCode(await post(GENERATOR_MARKERS.failed), 'report_generation_failed');
    expectCode(await post(GENERATOR_MARKERS.unavailable), 'report_generation_unavailable');
  });

  it('R53: every error trigger of a test key answers as the contract says, with ers-mode: test', async function () {
    for (const code of ERROR_TRIGGERS.keys()) {
      // A customer per trigger: the test bucket of the rate limit (3 here) is not what is tested.
      const customer = await testKeyOf(await createCustomerFixture());
      const body = textBody(`Checking our error handling. ers_test_trigger:${code}`);
      const res = await rig.send('POST', REPORTS, { body, headers: withKey(customer, { 'idempotency-key': `trigger-${code}` }) });
      expectCode(res, code);
      expect(res.headers['ers-mode']).to.equal('test');
    }
  });

  it('R54: GET /v1/evidence/reports/{id} answers 200 to its owner, 404 to another customer, the other mode and a malformed id, 403 without the entitlement', async function () {
    const owner = await createCustomerFixture();
    const created = await rig.send('POST', REPORTS, { body: textBody('Broken tile in the lobby.'), headers: withKey(owner) });
    const id = (created.body as { id: string }).id;
    const read = await rig.send('GET', `${REPORTS}/${id}`, { headers: withKey(owner) });
    expect(read.status, read.text).to.equal(200);
    expect(read.body).to.deep.equal(created.body);
    const stranger = await createCustomerFixture();
    expectCode(await rig.send('GET', `${REPORTS}/${id}`, { headers: withKey(stranger) }), 'evidence_report_not_found');
    expectCode(await rig.send('GET', `${REPORTS}/${id}`, { headers: withKey(await testKeyOf(owner)) }), 'evidence_report_not_found');
    expectCode(await rig.send('GET', `${REPORTS}/not-a-report`, { headers: withKey(owner) }), 'evidence_report_not_found');
    const notEntitled = await createCustomerFixture({ noEntitlement: true });
    expectCode(await rig.send('GET', `${REPORTS}/${id}`, { headers: withKey(notEntitled) }), 'product_not_entitled');
    expectCode(await rig.send('GET', `${REPORTS}/${id}`, { headers: { 'x-api-key': 'ers_live_unknown' } }), 'invalid_api_key');
  });
});

/** The customer with a test-mode key of its own (R53) in place of its live key. */
async function testKeyOf(customer: CustomerFixture): Promise<CustomerFixture> {
  const { apiKey, apiKeyId } = await createKey(await testEm(), { customerId: customer.customerId, mode: 'test' });
  return { ...customer, apiKey, apiKeyId };
}
