// Idempotent replay (spec 4.1 rule 1, rulings R12, R13): the same customer, key and normalized
// request gets the original 201 body unchanged, with `idempotent-replayed: true`, and nothing new:
// no report, no unit, no fetch, no generation. A replay still passes steps 1 to 4, and is not
// blocked by an exhausted quota.
import { expect } from 'chai';
import { createKey } from '../../../src/admin/keys.ts';
import { setEntitlement } from '../../../src/admin/entitlements.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import { createCustomerFixture, testEm } from '../../support/database.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, caller, customerTotals, isReplay, type CreatedReport } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const BODY = {
  context: 'damage_report',
  language: 'en',
  evidence: { text: 'A dent in the left door of van 7.', images: [{ url: 'https://img.example/van-7.png' }] },
};
// The same request: keys in another order at every level, other whitespace (R12).
const SAME_BODY_REORDERED = `{ "evidence" : { "images": [ {"url":"https://img.example/van-7.png"} ],
  "text":"A dent in the left door of van 7." },
  "language":"en",   "context":"damage_report" }`;

describe('POST /v1/evidence/reports: idempotent replay (spec 4.1, R12, R13)', () => {
  const generator = new FakeReportGenerator();
  const imageFetcher = new FakeImageFetcher();
  const app = useService({}, { generator, imageFetcher });
  const limited = useService({ RATE_LIMIT_REQUESTS: '2' }, { generator, imageFetcher });

  it('the same body with keys reordered and other whitespace is replayed: 201, same body, idempotent-replayed: true (R12, R13)', async () => {
    const client = await app.newCaller();
    const first = await client.create<CreatedReport>(BODY, { headers: { 'idempotency-key': 'replay-1' } });
    expect(first.status).to.equal(201);
    expect(first.headers).not.to.have.property('idempotent-replayed');
    const [calls, fetches] = [generator.callCount, imageFetcher.calls.length];
    const replay = await client.create<CreatedReport>(undefined, {
      raw: SAME_BODY_REORDERED,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'replay-1' },
    });
    expect(replay.status).to.equal(201);
    expect(replay.headers['idempotent-replayed']).to.equal('true');
    expect(replay.body).to.deep.equal(first.body);
    // Nothing new: no generation, no fetch (spec 4.1 rule 1), no report, no unit.
    expect([generator.callCount, imageFetcher.calls.length]).to.deep.equal([calls, fetches]);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });

  it('a replay is not blocked by an exhausted quota: it requests no unit (R13)', async () => {
    const client = await app.newCaller({ monthlyLimit: 1 });
    const first = await client.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'last-unit' } });
    expect(first.status).to.equal(201);
    expectApiError(await client.create(bodyNumber(2)), 'quota_exceeded');
    const replay = await client.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'last-unit' } });
    expect(replay.status).to.equal(201);
    expect(isReplay(replay)).to.equal(true);
    expect(replay.body.id).to.equal(first.body.id);
  });

  it('a replay is still rate limited: it passes step 3 (R13, R20)', async () => {
    const client = await limited.newCaller();
    expect((await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'rl' } })).status).to.equal(201);
    expect(isReplay(await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'rl' } }))).to.equal(true);
    expectApiError(await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'rl' } }), 'rate_limit_exceeded');
  });

  it('a replay is still entitlement-checked: it passes step 4 (R13, R21)', async () => {
    const customer = await createCustomerFixture();
    const client = caller(app.service.url, customer, app.ledger);
    expect((await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'ent' } })).status).to.equal(201);
    await setEntitlement(await testEm(), { customerId: customer.customerId, entitled: false });
    expectApiError(await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'ent' } }), 'product_not_entitled');
  });

  it('two API keys of one customer share the scope: the second key replays the first key\'s report (R12)', async () => {
    const customer = await createCustomerFixture();
    const { apiKey } = await createKey(await testEm(), { customerId: customer.customerId });
    const first = await caller(app.service.url, customer, app.ledger).create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'shared' } });
    const second = await caller(app.service.url, { customerId: customer.customerId, apiKey }, app.ledger).create<CreatedReport>(bodyNumber(1), {
      headers: { 'idempotency-key': 'shared' },
    });
    expect(isReplay(second)).to.equal(true);
    expect(second.body.id).to.equal(first.body.id);
  });

  it('another customer with the same key and body gets a report of its own (R12: the scope includes the customer)', async () => {
    const a = await app.newCaller();
    const b = await app.newCaller();
    const fromA = await a.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'same-key' } });
    const fromB = await b.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'same-key' } });
    expect([fromA.status, fromB.status]).to.deep.equal([201, 201]);
    expect(isReplay(fromB)).to.equal(false);
    expect(fromB.body.id).not.to.equal(fromA.body.id);
  });

  it('without the header the same body makes a new report each time (spec 4.1 rule 5)', async () => {
    const client = await app.newCaller();
    const first = await client.create<CreatedReport>(bodyNumber(1));
    const second = await client.create<CreatedReport>(bodyNumber(1));
    expect(second.body.id).not.to.equal(first.body.id);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 2, units: 2, claims: 0 });
  });
});
