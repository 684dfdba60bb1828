// 400 invalid_json through the real app (spec section 7, rulings R6, R29): malformed JSON,
// including bytes that are not UTF-8 and an empty body, after authentication and before any
// schema check; nothing is generated, fetched or stored.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { useService } from '../../support/use-service.ts';
import { customerTotals } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const MALFORMED: [string, Buffer | string][] = [
  ['an empty body', ''],
  ['whitespace only', '  \n '],
  ['a truncated object', '{"context": "property_maintenance", "evidence": {"text": "leak"}'],
  ['a trailing comma', '{"context": "property_maintenance", "evidence": {"text": "leak"},}'],
  ['single quotes', "{'context': 'property_maintenance'}"],
  ['two JSON values', '{} {}'],
  ['bytes that are not UTF-8 inside a string', Buffer.concat([Buffer.from('{"context":"property_maintenance","evidence":{"text":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}')])],
  ['a lone UTF-8 continuation byte', Buffer.from([0x7b, 0x80, 0x7d])],
  ['an overlong UTF-8 encoding of "{"', Buffer.from([0xc1, 0xbb, 0x7d])],
];

describe('POST /v1/evidence/reports: 400 invalid_json (spec section 7, R29)', () => {
  const generator = new FakeReportGenerator();
  const imageFetcher = new FakeImageFetcher();

  const app = useService({}, { generator, imageFetcher });

  for (const [name, raw] of MALFORMED) {
    it(`${name} is 400 invalid_json with the fixed message`, async () => {
      const res = await app.client.create(undefined, { raw, headers: { 'content-type': 'application/json', 'idempotency-key': `json-${name}` } });
      expectApiError(res, 'invalid_json');
    });
  }

  it('well-formed UTF-8 beyond ASCII is JSON, not invalid_json (control: the check is about bytes, not characters)', async () => {
    const raw = Buffer.from(JSON.stringify({ context: 'damage_report', evidence: { text: 'Riss in der Wand, Schäden über 2 m — 🚧' } }), 'utf8');
    const res = await app.client.create(undefined, { raw, headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(res.status).to.equal(201);
  });

  it('no malformed request reaches the generator or leaves a report, unit or claim', async () => {
    expect(generator.callCount).to.equal(1);
    expect(imageFetcher.calls).to.deep.equal([]);
    expect(await customerTotals(app.client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });
});
