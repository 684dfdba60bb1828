// 400 invalid_request_payload through the real app (spec 2.1, rulings R6, R8, R28): the first
// violation as {pointer, rule}; a rejected request writes nothing and never reaches a generator
// or an image host.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { useService } from '../../support/use-service.ts';
import { customerTotals } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const text = { text: 'Water is dripping under the sink.' };

// `{}` and `images: []` alone fail both branches of the evidence anyOf (text, or at least one
// image); the first violation named is the text branch's: /evidence/text is required.
const CASES: { rule: string; body: unknown; details: { pointer: string; rule: string } }[] = [
  { rule: 'an unknown top-level property', body: { context: 'property_maintenance', evidence: text, status: 'x' }, details: { pointer: '/status', rule: 'additionalProperties' } },
  { rule: 'an unknown property inside evidence', body: { context: 'property_maintenance', evidence: { ...text, audio: 'a' } }, details: { pointer: '/evidence/audio', rule: 'additionalProperties' } },
  { rule: 'an unknown property inside an image', body: { context: 'property_maintenance', evidence: { images: [{ url: 'https://img.example/a.png', alt: 'x' }] } }, details: { pointer: '/evidence/images/0/alt', rule: 'additionalProperties' } },
  { rule: 'an unknown context', body: { context: 'space_travel', evidence: text }, details: { pointer: '/context', rule: 'enum' } },
  { rule: 'a missing context', body: { evidence: text }, details: { pointer: '/context', rule: 'required' } },
  { rule: 'a missing evidence', body: { context: 'property_maintenance' }, details: { pointer: '/evidence', rule: 'required' } },
  { rule: 'an empty evidence {}', body: { context: 'property_maintenance', evidence: {} }, details: { pointer: '/evidence/text', rule: 'required' } },
  { rule: 'images: [] alone (R28)', body: { context: 'property_maintenance', evidence: { images: [] } }, details: { pointer: '/evidence/text', rule: 'required' } },
  { rule: 'blank text "   "', body: { context: 'property_maintenance', evidence: { text: '   ' } }, details: { pointer: '/evidence/text', rule: 'pattern' } },
  { rule: 'empty text ""', body: { context: 'property_maintenance', evidence: { text: '' } }, details: { pointer: '/evidence/text', rule: 'minLength' } },
  { rule: 'blank language "  "', body: { context: 'property_maintenance', language: '  ', evidence: text }, details: { pointer: '/language', rule: 'pattern' } },
  { rule: 'a bare-string image', body: { context: 'property_maintenance', evidence: { images: ['https://img.example/a.png'] } }, details: { pointer: '/evidence/images/0', rule: 'type' } },
  { rule: 'an image without url', body: { context: 'property_maintenance', evidence: { images: [{}] } }, details: { pointer: '/evidence/images/0/url', rule: 'required' } },
  { rule: 'a relative image URL', body: { context: 'property_maintenance', evidence: { images: [{ url: '/img/a.png' }] } }, details: { pointer: '/evidence/images/0/url', rule: 'pattern' } },
  { rule: 'an ftp:// image URL', body: { context: 'property_maintenance', evidence: { images: [{ url: 'ftp://img.example/a.png' }] } }, details: { pointer: '/evidence/images/0/url', rule: 'pattern' } },
  { rule: 'an image URL with an IPv6 zone id', body: { context: 'property_maintenance', evidence: { images: [{ url: 'http://[fe80::1%eth0]/x.png' }] } }, details: { pointer: '/evidence/images/0/url', rule: 'format' } },
  { rule: 'a number for text', body: { context: 'property_maintenance', evidence: { text: 42 } }, details: { pointer: '/evidence/text', rule: 'type' } },
];

describe('POST /v1/evidence/reports: 400 invalid_request_payload (spec 2.1, R6, R8, R28)', () => {
  const generator = new FakeReportGenerator();
  const imageFetcher = new FakeImageFetcher();

  const app = useService({}, { generator, imageFetcher });

  for (const { rule, body, details } of CASES) {
    it(`${rule} is 400 invalid_request_payload with details ${JSON.stringify(details)} (R8)`, async () => {
      const res = await app.client.create(body, { headers: { 'idempotency-key': `payload-${rule}` } });
      expectApiError(res, 'invalid_request_payload', details);
    });
  }

  for (const [name, raw, details] of [
    ['a JSON array body', '[]', { pointer: '', rule: 'type' }],
    ['a JSON string body', '"{\\"context\\":\\"property_maintenance\\"}"', { pointer: '', rule: 'type' }],
    ['a JSON null body', 'null', { pointer: '', rule: 'type' }],
    ['a JSON number body', '42', { pointer: '', rule: 'type' }],
  ] as const) {
    it(`${name} is 400 invalid_request_payload with pointer "" and rule "type" (R8)`, async () => {
      const res = await app.client.create(undefined, { raw, headers: { 'content-type': 'application/json' } });
      expectApiError(res, 'invalid_request_payload', details);
    });
  }

  it('text with images: [] is a valid text report (R28)', async () => {
    const res = await app.client.create({ context: 'property_maintenance', evidence: { ...text, images: [] } });
    expect(res.status).to.equal(201);
  });

  it('no rejected request reaches the generator or an image host, or leaves a report, unit or claim (spec section 1)', async () => {
    // One 201 above (R28): exactly one generator call, no fetch, and nothing else stored.
    expect(generator.callCount).to.equal(1);
    expect(imageFetcher.calls).to.deep.equal([]);
    const totals = await customerTotals(app.client.customerId);
    expect(totals).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });
});
