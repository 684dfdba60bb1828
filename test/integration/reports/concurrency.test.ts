// Concurrency through the real app (spec 4.1, section 8, rulings R11 to R15, R17): shared keys
// give exactly one report per key and every other answer is a replay of it or 409
// idempotency_in_progress; requests racing for the last unit may share it (no reservation) but
// units always equal reports equal 201s; many distinct keys give exactly one unit each.
import { expect } from 'chai';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import type { TestResponse } from '../../support/http-client.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, customerTotals, isReplay, type CreatedReport } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

describe('POST /v1/evidence/reports under concurrency (spec 4.1, section 8, R12 to R15, R17)', function () {
  this.timeout(60_000);
  // A short generation widens the window in which requests overlap.
  const generator = new FakeReportGenerator({ delayMs: 50 });

  // One customer sends up to 200 at once: its in-flight limit (R52) is lifted like its rate limit.
  // Correctness under concurrency, not load shedding (R52): neither admission limit applies here.
  const app = useService({ RATE_LIMIT_REQUESTS: '10000', MAX_IN_FLIGHT_PER_CUSTOMER: '0', ADMISSION_MAX_QUEUE_MS: '0' }, { generator });

  it('50 concurrent requests on 10 keys (5 each, same body per key): exactly 10 reports and 10 units; the rest replay or 409 in_progress', async () => {
    const client = await app.newCaller();
    const keys = Array.from({ length: 10 }, (_, k) => `shared-${k}`);
    const sent = keys.flatMap((key, k) => Array.from({ length: 5 }, () => ({ key, body: bodyNumber(k) })));
    const answers = await Promise.all(
      sent.map(async ({ key, body }) => ({ key, res: await client.create<CreatedReport>(body, { headers: { 'idempotency-key': key } }) })),
    );
    const originals = new Map<string, string>();
    for (const { key, res } of answers) {
      if (res.status === 201 && !isReplay(res)) {
        expect(originals.has(key), `two originals for ${key}`).to.equal(false);
        originals.set(key, res.body.id);
      }
    }
    expect([...originals.keys()].sort()).to.deep.equal([...keys].sort());
    for (const { key, res } of answers) {
      if (res.status === 201) expect(res.body.id, `the answer for ${key}`).to.equal(originals.get(key));
      else expectApiError(res, 'idempotency_in_progress');
    }
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 10, units: 10, claims: 0 });
  });

  it('10 concurrent requests for the last unit (limit 3, used 2): at least one 201, each 201 or 429 quota_exceeded, units == reports == 201s (spec section 8)', async () => {
    const client = await app.newCaller({ monthlyLimit: 3 });
    for (const n of [1, 2]) expect((await client.create(bodyNumber(n))).status).to.equal(201);
    const answers: TestResponse[] = await Promise.all(Array.from({ length: 10 }, (_, i) => client.create(bodyNumber(10 + i))));
    const created = answers.filter((res) => res.status === 201).length;
    expect(created).to.be.at.least(1);
    for (const res of answers) if (res.status !== 201) expectApiError(res, 'quota_exceeded');
    // No reservation (spec section 8): requests that passed the check together may all complete.
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 2 + created, units: 2 + created, claims: 0 });
    expectApiError(await client.create(bodyNumber(99)), 'quota_exceeded');
  });

  it('200 concurrent requests on distinct keys: exactly 200 x 201, 200 reports and 200 units', async () => {
    const client = await app.newCaller();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => client.create<CreatedReport>(bodyNumber(i), { headers: { 'idempotency-key': `distinct-${i}` } })),
    );
    expect(answers.map((res) => res.status)).to.deep.equal(Array(200).fill(201));
    expect(answers.filter(isReplay)).to.have.length(0);
    expect(new Set(answers.map((res) => res.body.id)).size).to.equal(200);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 200, units: 200, claims: 0 });
  });
});
