// 400 invalid_idempotency_key (spec 4.1, ruling R11): the key is trimmed and must then have 1 to
// 255 characters; blank, longer or repeated is a 400 at step 2, before anything is claimed.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, customerTotals, isReplay, type CreatedReport } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

describe('POST /v1/evidence/reports: the Idempotency-Key header (spec 4.1, R11)', () => {
  const generator = new FakeReportGenerator();

  const app = useService({}, { generator });

  const invalid: [string, string | string[]][] = [
    ['an empty key', ''],
    ['a blank key', '   '],
    ['a tab-only key', '\t'],
    ['a key of 256 characters', 'k'.repeat(256)],
    ['a key of 256 characters inside spaces', ` ${'k'.repeat(256)} `],
    ['a key sent twice (same value)', ['same', 'same']],
    ['a key sent twice (different values)', ['one', 'two']],
  ];
  for (const [name, value] of invalid) {
    it(`${name} is 400 invalid_idempotency_key, and claims and generates nothing: step 2 comes before step 5 (R11)`, async () => {
      const [calls, totals] = [generator.callCount, await customerTotals(app.client.customerId)];
      const res = await app.client.create(bodyNumber(1), { headers: { 'idempotency-key': value } });
      expectApiError(res, 'invalid_idempotency_key');
      expect(generator.callCount).to.equal(calls);
      expect(await customerTotals(app.client.customerId)).to.deep.equal(totals);
    });
  }

  it('a key of 255 characters is accepted (R11)', async () => {
    const res = await app.client.create(bodyNumber(2), { headers: { 'idempotency-key': 'k'.repeat(255) } });
    expect(res.status).to.equal(201);
  });

  it('a key of 255 characters inside spaces is accepted and is the same key once trimmed (R11)', async () => {
    const first = await app.client.create<CreatedReport>(bodyNumber(3), { headers: { 'idempotency-key': `  ${'t'.repeat(255)}  ` } });
    expect(first.status).to.equal(201);
    const again = await app.client.create<CreatedReport>(bodyNumber(3), { headers: { 'idempotency-key': 't'.repeat(255) } });
    expect(again.status).to.equal(201);
    expect(isReplay(again)).to.equal(true);
    expect(again.body.id).to.equal(first.body.id);
  });

  it('a one-character key is accepted (R11)', async () => {
    const res = await app.client.create(bodyNumber(4), { headers: { 'idempotency-key': 'x' } });
    expect(res.status).to.equal(201);
  });


  // A header travels as bytes; a key written in UTF-8 counts its characters, not its bytes (R11:
  // "1 to 255 characters"). Node's client sends a string's characters as single bytes, so the
  // UTF-8 bytes are given as that string.
  const utf8Bytes = (text: string): string => Buffer.from(text, 'utf8').toString('latin1');

  it('a key of 255 non-ASCII characters sent in UTF-8 (510 bytes) is accepted, and is the same key on a retry (R11)', async () => {
    const key = utf8Bytes('é'.repeat(255));
    const first = await app.client.create<CreatedReport>(bodyNumber(5), { headers: { 'idempotency-key': key } });
    expect(first.status, first.text).to.equal(201);
    const again = await app.client.create<CreatedReport>(bodyNumber(5), { headers: { 'idempotency-key': key } });
    expect(isReplay(again)).to.equal(true);
    expect(again.body.id).to.equal(first.body.id);
  });

  it('a key of 256 non-ASCII characters sent in UTF-8 is 400 invalid_idempotency_key (R11)', async () => {
    expectApiError(await app.client.create(bodyNumber(6), { headers: { 'idempotency-key': utf8Bytes('é'.repeat(256)) } }), 'invalid_idempotency_key');
  });
});
