// The life of an idempotency claim (ruling R14): a failed request gives its key back; a claim
// whose lease has passed (a crashed process) is taken over; a completed key replays for the
// retention (24 h) and is then free again. The lease doubles as a fencing token: a request that
// lost its claim to a takeover stores nothing (R15).
import { expect } from 'chai';
import { idempotencyLeaseMs } from '../../../src/config.ts';
import { CREATE_REPORT_METHOD, CREATE_REPORT_PATH } from '../../../src/reports/stages/apply-idempotency.ts';
import { FakeReportGenerator } from '../../../src/generation/fake-report-generator.ts';
import { FakeImageFetcher } from '../../../src/images/fake-image-fetcher.ts';
import type { ImageFetcher } from '../../../src/images/image-fetcher.ts';
import { createSql, type Sql, type Statement } from '../../../src/db/sql.ts';
import { PgIdempotencyStore } from '../../../src/idempotency/pg-idempotency-store.ts';
import { PersistenceFailure } from '../../../src/db/persistence-failure.ts';
import { rejectionOf } from '../../support/rejection.ts';
import type { TestResponse } from '../../support/http-client.ts';
import { requestFingerprint } from '../../../src/idempotency/fingerprint.ts';
import { FixedClock } from '../../../src/shared/clock.ts';
import { testEm, testOrm } from '../../support/database.ts';
import { useService } from '../../support/use-service.ts';
import { bodyNumber, customerTotals, isReplay, SwappableGenerator, waitFor, type CreatedReport } from '../../support/reports.ts';
import { expectApiError } from '../../support/expect-api-error.ts';

const T0 = '2026-06-15T12:00:00.000Z';
const HOUR = 3_600_000;

async function insertClaim(customerId: string, key: string, body: unknown, leaseExpiresAt: string): Promise<void> {
  await (await testEm()).execute(
    `insert into idempotency_record (customer_id, product, operation, idempotency_key, fingerprint, status, lease_expires_at, created_at)
     values (?, 'evidence_reports', 'evidence_report', ?, ?, 'in_progress', ?, ?)`,
    [customerId, key, requestFingerprint(CREATE_REPORT_METHOD, CREATE_REPORT_PATH, body), leaseExpiresAt, T0],
  );
}

const IMAGE_BODY = {
  context: 'damage_report',
  evidence: { text: 'A cracked window.', images: [{ url: 'https://img.example/window.png' }] },
};

describe('POST /v1/evidence/reports: release, lease takeover and retention of idempotency keys (R14)', () => {
  const clock = new FixedClock(T0);
  const generator = new SwappableGenerator(new FakeReportGenerator());
  /** How long, on the service's clock, each image fetch takes. */
  let imageClockMs = 0;
  const images = new FakeImageFetcher();
  const imageFetcher: ImageFetcher = {
    fetch: (urls, signal, options) => {
      clock.advance(imageClockMs);
      return images.fetch(urls, signal, options);
    },
  };
  let leaseMs: number;

  const app = useService({}, { clock, generator, imageFetcher });
  before(async () => {
    leaseMs = idempotencyLeaseMs(app.service.config);
  });
  beforeEach(() => {
    clock.set(T0);
    generator.current = new FakeReportGenerator();
    imageClockMs = 0;
  });

  it('a request that fails after claiming its key releases it: the retry with the same key succeeds (R14)', async () => {
    const client = await app.newCaller();
    generator.current = new FakeReportGenerator({ error: { kind: 'unavailable' } });
    expectApiError(await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'retry-me' } }), 'report_generation_unavailable');
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 0, units: 0, claims: 0 });
    generator.current = new FakeReportGenerator();
    const retry = await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'retry-me' } });
    expect(retry.status).to.equal(201);
    expect(isReplay(retry)).to.equal(false);
  });

  it('a completed key replays until the retention ends and makes a NEW report after it (R14: 24 h)', async () => {
    const client = await app.newCaller();
    const first = await client.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'day' } });
    clock.set(new Date(Date.parse(T0) + 24 * HOUR - 1));
    const replay = await client.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'day' } });
    expect(isReplay(replay)).to.equal(true);
    expect(replay.body.id).to.equal(first.body.id);
    clock.set(new Date(Date.parse(T0) + 24 * HOUR + 1));
    const fresh = await client.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'day' } });
    expect(fresh.status).to.equal(201);
    expect(isReplay(fresh)).to.equal(false);
    expect(fresh.body.id).not.to.equal(first.body.id);
  });

  it('after the retention the key is free for another request too: no conflict (R14)', async () => {
    const client = await app.newCaller();
    await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'reuse' } });
    expectApiError(await client.create(bodyNumber(2), { headers: { 'idempotency-key': 'reuse' } }), 'idempotency_conflict');
    clock.advance(24 * HOUR + 1);
    expect((await client.create(bodyNumber(2), { headers: { 'idempotency-key': 'reuse' } })).status).to.equal(201);
  });

  it('an in-progress claim whose lease has passed (a crashed process) is taken over: the request succeeds (R14)', async () => {
    const client = await app.newCaller();
    await insertClaim(client.customerId, 'crashed', bodyNumber(1), new Date(Date.parse(T0) - 1).toISOString());
    const res = await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'crashed' } });
    expect(res.status).to.equal(201);
    expect(isReplay(res)).to.equal(false);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });

  it('an expired claim of another request is taken over too: it is no conflict (R14)', async () => {
    const client = await app.newCaller();
    await insertClaim(client.customerId, 'crashed-other', bodyNumber(9), new Date(Date.parse(T0) - 1).toISOString());
    expect((await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'crashed-other' } })).status).to.equal(201);
  });

  it('a live claim of another instance is 409 idempotency_in_progress, of another request 409 idempotency_conflict (R14, R30)', async () => {
    const client = await app.newCaller();
    await insertClaim(client.customerId, 'live', bodyNumber(1), new Date(Date.parse(T0) + 1000).toISOString());
    expectApiError(await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'live' } }), 'idempotency_in_progress');
    expectApiError(await client.create(bodyNumber(2), { headers: { 'idempotency-key': 'live' } }), 'idempotency_conflict');
    clock.advance(1000);
    expect((await client.create(bodyNumber(1), { headers: { 'idempotency-key': 'live' } })).status).to.equal(201);
  });

  it('a request that lost its claim to a takeover stores nothing; the one that took over makes the one report (R14, R15)', async () => {
    const client = await app.newCaller();
    const slow = new FakeReportGenerator({ delayMs: 800 });
    generator.current = slow;
    const original = client.create(bodyNumber(1), { headers: { 'idempotency-key': 'fenced' } });
    await waitFor(() => slow.callCount === 1);
    // The original's lease passes while it generates; a retry takes the key over.
    clock.advance(leaseMs + 1);
    generator.current = new FakeReportGenerator();
    const takeover = await client.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'fenced' } });
    expect(takeover.status).to.equal(201);
    expect(isReplay(takeover)).to.equal(false);
    // The original finishes generating, cannot complete its lost claim, and rolls back.
    expectApiError(await original, 'idempotency_unavailable');
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
    const replay = await client.create<CreatedReport>(bodyNumber(1), { headers: { 'idempotency-key': 'fenced' } });
    expect(replay.body.id).to.equal(takeover.body.id);
  });

  it('images that took most of the lease: the claim is renewed before generating, so a retry past the first lease is 409 in progress; one generation, one report (R14)', async () => {
    const client = await app.newCaller();
    imageClockMs = 40_000; // 25 s of the 65 s lease left: less than one generation and R14's 30 s
    const generated = new FakeReportGenerator();
    let retry: TestResponse | undefined;
    generator.current = {
      generate: async (input, signal) => {
        if (retry === undefined) {
          clock.advance(leaseMs - 40_000 + 1); // the first lease has passed
          imageClockMs = 0;
          retry = await client.create(IMAGE_BODY, { headers: { 'idempotency-key': 'slow-images' } });
        }
        return generated.generate(input, signal);
      },
    };
    const original = await client.create<CreatedReport>(IMAGE_BODY, { headers: { 'idempotency-key': 'slow-images' } });
    expect(original.status).to.equal(201);
    expectApiError(retry!, 'idempotency_in_progress');
    expect(generated.callCount).to.equal(1);
    expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 1, units: 1, claims: 0 });
  });

  it('the store renews only a claim short of a generation and R14 margin, under its token; the old token can no longer renew or release it (R14)', async () => {
    const client = await app.newCaller();
    const sql = await createSql(await testOrm());
    const store = new PgIdempotencyStore({ sql, clock, leaseMs: 65_000, renewBelowMs: 60_000, retentionMs: 24 * HOUR });
    try {
      const owner = { customerId: client.customerId, mode: 'live' as const };
      const t0 = new Date(T0);
      const outcome = await store.claim(owner, 'renewed', 'c'.repeat(64), t0);
      if (outcome.kind !== 'claimed') throw new Error(`expected a claim, got ${outcome.kind}`);
      const lease = async () =>
        new Date(
          ((await (await testEm()).execute('select lease_expires_at from idempotency_record where customer_id = ? and idempotency_key = ?', [owner.customerId, 'renewed']))[0] as { lease_expires_at: string | Date }).lease_expires_at,
        ).toISOString();
      // 60 s left: kept as it is, nothing written.
      expect(await store.keep(outcome.claim, new Date(Date.parse(T0) + 5_000))).to.equal(outcome.claim);
      expect(await lease()).to.equal(outcome.claim.leaseExpiresAt);
      // 25 s left: renewed to a full lease from now, a new token.
      const at40 = new Date(Date.parse(T0) + 40_000);
      const renewed = await store.keep(outcome.claim, at40);
      expect(renewed.leaseExpiresAt).to.equal(new Date(at40.getTime() + 65_000).toISOString());
      expect(await lease()).to.equal(renewed.leaseExpiresAt);
      // The old token is no longer the claim: it can be neither renewed nor released.
      expect((await rejectionOf(store.keep(outcome.claim, at40), PersistenceFailure)).kind).to.equal('claim_lost');
      await store.release(outcome.claim);
      expect(await lease()).to.equal(renewed.leaseExpiresAt);
      await store.release(renewed);
      expect(await customerTotals(client.customerId)).to.deep.equal({ reports: 0, units: 0, claims: 0 });
    } finally {
      store.close();
    }
  });

  /** The answer a client gets when its connection is cut mid-statement. */
  const lostAnswer = () => new PersistenceFailure('unavailable', { cause: new Error('Connection terminated unexpectedly') });

  /** The real statements, each passed through `through` with its name and the way to run it. */
  function intercepted(real: Sql, through: (name: string, run: () => Promise<unknown>) => Promise<unknown>): Sql {
    return {
      rows: <T>(st: Statement, params: readonly unknown[]) => through(st.name, () => real.rows<T>(st, params)) as Promise<T[]>,
      count: (st, params) => through(st.name, () => real.count(st, params)) as Promise<number>,
      query: (config) => real.query(config),
      pool: real.pool,
    };
  }

  /** The real statements, but the answer of the named ones is lost after they ran: committed, and the caller told it failed. */
  function losingAnswersOf(real: Sql, lost: Set<string>): Sql {
    return intercepted(real, async (name, run) => {
      const result = await run();
      if (lost.delete(name)) throw lostAnswer();
      return result;
    });
  }

  it('a claim whose write is answered as failed but commits later still is released once it has (R14, R33)', async () => {
    const client = await app.newCaller();
    const real = await createSql(await testOrm());
    let late: Promise<unknown> | undefined;
    // The claim's insert is reported failed at once, and reaches the database 600 ms later (a
    // statement that waited at a pooler, say): the first background releases find nothing yet.
    const sql = intercepted(real, async (name, run) => {
      if (name !== 'idempotency_claim' || late !== undefined) return run();
      late = new Promise((resolve) => setTimeout(resolve, 600)).then(run);
      throw lostAnswer();
    });
    const store = new PgIdempotencyStore({ sql, clock, leaseMs: 65_000, renewBelowMs: 60_000, settleMs: 3_000, retentionMs: 24 * HOUR });
    try {
      const owner = { customerId: client.customerId, mode: 'live' as const };
      await rejectionOf(store.claim(owner, 'late-commit', 'e'.repeat(64), new Date(T0)), PersistenceFailure);
      await late;
      await waitFor(async () => (await customerTotals(client.customerId)).claims === 0, 5_000);
      const retry = await store.claim(owner, 'late-commit', 'e'.repeat(64), new Date(Date.parse(T0) + 1_000));
      expect(retry.kind).to.equal('claimed');
      if (retry.kind === 'claimed') await store.release(retry.claim);
    } finally {
      store.close();
    }
  });

  for (const [what, lostStatement] of [
    ['a claim', 'idempotency_claim'],
    ['a renewal', 'idempotency_renew'],
  ] as const) {
    it(`${what} that committed but whose answer was lost is released in the background: the client's retry is not 409 for a whole lease (R14, R33)`, async () => {
      const client = await app.newCaller();
      const lost = new Set<string>();
      const store = new PgIdempotencyStore({ sql: losingAnswersOf(await createSql(await testOrm()), lost), clock, leaseMs: 65_000, renewBelowMs: 60_000, retentionMs: 24 * HOUR });
      try {
        const owner = { customerId: client.customerId, mode: 'live' as const };
        const fingerprint = 'd'.repeat(64);
        if (lostStatement === 'idempotency_claim') {
          lost.add(lostStatement);
          await rejectionOf(store.claim(owner, 'lost-answer', fingerprint, new Date(T0)), PersistenceFailure);
        } else {
          const outcome = await store.claim(owner, 'lost-answer', fingerprint, new Date(T0));
          if (outcome.kind !== 'claimed') throw new Error(`expected a claim, got ${outcome.kind}`);
          lost.add(lostStatement);
          await rejectionOf(store.keep(outcome.claim, new Date(Date.parse(T0) + 40_000)), PersistenceFailure);
          await store.release(outcome.claim); // what the request does after the failure: its old token matches nothing now
        }
        expect(lost.size, 'the statement ran').to.equal(0);
        await waitFor(async () => (await customerTotals(client.customerId)).claims === 0, 5_000);
        const retry = await store.claim(owner, 'lost-answer', fingerprint, new Date(Date.parse(T0) + 41_000));
        expect(retry.kind).to.equal('claimed');
        if (retry.kind === 'claimed') await store.release(retry.claim);
      } finally {
        store.close();
      }
    });
  }
});
