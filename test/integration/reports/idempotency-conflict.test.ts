// 409s of idempotency (spec 4.1 rules 2 and 3, rulings R12, R30): the same key with another
// normalized request is idempotency_conflict whatever the original's state; the same request
// while the original still runs is idempotency_in_progress. Neither generates or stores anything.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, customerTotals, isReplay, waitFor, type CreatedReport } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

describe('POST /v1/evidence/reports: idempotency_conflict and idempotency_in_progress (spec 4.1, R12, R30)', () => {
  // Slow enough that a second request arrives while the first is generating.
  const generator = new FakeReportGenerator({ delayMs: 600 });

  const app = useService({}, { generator });

  it('a completed key reused with a different body is 409 idempotency_conflict (spec 4.1 rule 2)', async () => {
    const client = await app.newCaller();
    expect((await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'k' } })).status).to.equal(201);
    const calls = generator.callCount;
    expectApiError(await client.create(bodyNumber(2), { headers: { 'idempotency-key': 'k' } }), 'idempotency_conflict');
    // Any value change is another request (R12): the language alone.
    expectApiError(await client.create({ ...bodyNumber(1), language: 'de' }, { headers: { 'idempotency-key': 'k' } }), 'idempotency_conflict');
    expect(generator.callCount).to.equal(calls);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });

  it('the same body while the original is still processing is 409 idempotency_in_progress; afterwards it replays (spec 4.1 rule 3)', async () => {
    const client = await app.newCaller();
    const calls = generator.callCount;
    const original = client.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'slow' } });
    await waitFor(() => generator.callCount > calls);
    expectApiError(await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'slow' } }), 'idempotency_in_progress');
    const first = await original;
    expect(first.status).to.equal(201);
    const replay = await client.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'slow' } });
    expect(isReplay(replay)).to.equal(true);
    expect(replay.body.id).to.equal(first.body.id);
    expect(generator.callCount).to.equal(calls + 1);
  });

  it('a different body while the original is still processing is 409 idempotency_conflict, not in_progress (R30)', async () => {
    const client = await app.newCaller();
    const calls = generator.callCount;
    const original = client.create(bodyNumber(1), { headers: { 'idempotency-key': 'slow-other' } });
    await waitFor(() => generator.callCount > calls);
    expectApiError(await client.create(bodyNumber(2), { headers: { 'idempotency-key': 'slow-other' } }), 'idempotency_conflict');
    expect((await original).status).to.equal(201);
    expect(generator.callCount).to.equal(calls + 1);
  });
});
