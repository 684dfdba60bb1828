// Conformance through Prism 5, requests the contract FORBIDS. A `--errors` proxy
// would answer these itself, so they go through a proxy without `--errors`, which forwards
// them and still validates the service's answer: violations Prism locates under "request" are
// Prism agreeing that the request is bad (expected), and violations under "response" must be
// zero, in the `sl-violations` header of every answer and in Prism's log. The full reasoning
// is in prism-valid-requests.test.ts.
import { createCustomerFixture } from '../../support/database.ts';
import { REPORTS, USAGE, expectCode, startPrismRig, textBody, withKey, type PrismRig } from './prism-rig.ts';
import { tamperHeader } from './tamper-shim.ts';

describe('Prism proxy, requests the contract forbids: Prism may flag the request, never the response (R9)', function () {
  this.timeout(60_000);
  let rig: PrismRig;

  before(async function () {
    rig = await startPrismRig({ errors: false, requestMayBeFlagged: true });
  });

  after(async function () {
    try {
      await rig?.checkLog();
    } finally {
      await rig?.close();
    }
  });

  it('401 missing_api_key without the header or with a blank one, before the body is read (R5)', async function () {
    expectCode(await rig.send('GET', USAGE), 'missing_api_key');
    expectCode(await rig.send('POST', REPORTS, { raw: 'not json', headers: { 'content-type': 'text/plain' } }), 'missing_api_key');
    expectCode(await rig.send('POST', REPORTS, { body: textBody('x'), headers: { 'x-api-key': '   ' } }), 'missing_api_key');
    expectCode(await rig.send('GET', USAGE, { headers: { 'x-api-key': '' } }), 'missing_api_key');
  });

  it('400 invalid_request_payload for each kind of schema violation (R8, R28)', async function () {
    const customer = await createCustomerFixture();
    const bodies = [
      { context: 'not_a_context', evidence: { text: 'x' } },
      textBody('x', { unknown: true }),
      { context: 'damage_report', evidence: { text: 'x', images: [{ url: 'https://a.example/x.png', alt: 'x' }] } },
      { context: 'damage_report' },
      { context: 'damage_report', evidence: {} },
      { context: 'damage_report', evidence: { images: [] } },
      { context: 'damage_report', evidence: { text: '   ' } },
      { context: 'damage_report', language: ' ', evidence: { text: 'x' } },
      { context: 'damage_report', evidence: { images: [{ url: 'ftp://images.example.org/a.png' }] } },
      { context: 42, evidence: { text: 'x' } },
      [],
      'a string',
      null,
    ];
    for (const body of bodies) {
      // Prism re-serialises what it parsed (a top-level string loses its quotes, null its body):
      // the shim hands the service the exact bytes Prism validated.
      const raw = JSON.stringify(body);
      const headers = withKey(customer, { 'content-type': 'application/json', ...tamperHeader({ body: raw }) });
      expectCode(await rig.send('POST', REPORTS, { raw, headers }), 'invalid_request_payload');
    }
  });

  it('400 invalid_request_payload for a content type other than JSON (R6)', async function () {
    const customer = await createCustomerFixture();
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx']) {
      const res = await rig.send('POST', REPORTS, { raw: JSON.stringify(textBody('x')), headers: withKey(customer, { 'content-type': contentType }) });
      expectCode(res, 'invalid_request_payload');
    }
    const res = await rig.send('POST', REPORTS, { raw: JSON.stringify(textBody('x')), headers: withKey(customer) });
    expectCode(res, 'invalid_request_payload');
  });

  it('400 invalid_idempotency_key for a blank or an over-long key (R11)', async function () {
    const customer = await createCustomerFixture();
    for (const value of ['   ', 'k'.repeat(256)]) {
      const headers = withKey(customer, { 'idempotency-key': value });
      expectCode(await rig.send('POST', REPORTS, { body: textBody('x'), headers }), 'invalid_idempotency_key');
    }
  });
});
