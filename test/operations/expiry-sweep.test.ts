// Ruling R36: bounded tables. The periodic sweep deletes idempotency records past their
// retention, abandoned claims past their lease and rate-limit counters past their window, in
// bounded batches, by one instance at a time, and nothing else. A swept key may be used again
// as new (R14). Runs on a database of its own, so "nothing else" can be counted exactly.
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createSql } from '../../src/db/sql.ts';
import { applyMigrations } from '../../src/db/migrator.ts';
import { PgIdempotencyStore } from '../../src/idempotency/pg-idempotency-store.ts';
import { ExpirySweeper } from '../../src/maintenance/expiry-sweeper.ts';
import { FixedClock } from '../../src/shared/clock.ts';
import { createCustomerFixture, openOrm, withEmptyDatabase, withServerDatabase } from '../support/database.ts';

const NOW = new Date('2026-11-23T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW.getTime() + offsetMs).toISOString();
const HOUR = 3_600_000;

async function seed(orm: MikroORM, customerId: string): Promise<void> {
  const em = orm.em.fork();
  const record = (key: string, status: string, lease: string, expires: string | null) =>
    em.execute(
      `insert into idempotency_record (customer_id, product, operation, idempotency_key, fingerprint, status, lease_expires_at, expires_at)
       values (?, 'evidence_reports', 'evidence_report', ?, repeat('a', 64), ?, ?, ?)`,
      [customerId, key, status, lease, expires],
    );
  for (let i = 0; i < 7; i++) await record(`retention-passed-${i}`, 'completed', at(-25 * HOUR), at(-HOUR - i));
  await record('retention-ends-now', 'completed', at(-25 * HOUR), at(0));
  await record('retention-running', 'completed', at(-HOUR), at(23 * HOUR));
  for (let i = 0; i < 3; i++) await record(`lease-passed-${i}`, 'in_progress', at(-1 - i), null);
  await record('lease-running', 'in_progress', at(60_000), null);
  const counter = (key: string, expire: number | null) =>
    em.execute('insert into rate_limit_counter (key, points, expire) values (?, 1, ?)', [key, expire]);
  await counter('sweep-test:window-passed-1', Date.now() - 1_000);
  await counter('sweep-test:window-passed-2', Date.now() - 60_000);
  await counter('sweep-test:window-running', Date.now() + 60_000);
  await counter('sweep-test:no-expiry', null);
}

async function keys(orm: MikroORM): Promise<{ idempotency: string[]; counters: string[] }> {
  const em = orm.em.fork();
  const idempotency = await em.execute<{ k: string }[]>('select idempotency_key as k from idempotency_record order by 1');
  const counters = await em.execute<{ k: string }[]>('select key as k from rate_limit_counter order by 1');
  return { idempotency: idempotency.map((r) => r.k), counters: counters.map((r) => r.k) };
}

async function withSweepDatabase(
  fn: (orm: MikroORM, customerId: string) => Promise<void>,
  withDatabase: (fn: (url: string) => Promise<void>) => Promise<void> = withEmptyDatabase,
): Promise<void> {
  await withDatabase(async (url) => {
    const orm = await openOrm(url, 4);
    try {
      await applyMigrations(orm);
      const { customerId } = await createCustomerFixture({}, orm.em.fork());
      await seed(orm, customerId);
      await fn(orm, customerId);
    } finally {
      await orm.close(true);
    }
  });
}

const sweeper = async (orm: MikroORM, options: { batchSize?: number; maxBatches?: number; lock?: 'session' | 'statement' } = {}) =>
  new ExpirySweeper({ pool: await orm.em.getConnection().getNativeClient(), clock: new FixedClock(NOW), intervalMs: 300_000, ...options });

describe('the expiry sweep deletes what has expired and nothing else (R36)', function () {
  this.timeout(60_000);

  it('deletes completed records past retention, claims past their lease and counters past their window, in batches', async () => {
    await withSweepDatabase(async (orm) => {
      const result = await (await sweeper(orm, { batchSize: 3 })).sweepOnce();
      expect(result).to.deep.equal({ idempotencyRecords: 11, rateLimitCounters: 2 });
      expect(await keys(orm)).to.deep.equal({
        idempotency: ['lease-running', 'retention-running'],
        counters: ['sweep-test:no-expiry', 'sweep-test:window-running'],
      });
    });
  });

  it('deletes at most batchSize x maxBatches rows a round; the next round takes the rest', async () => {
    await withSweepDatabase(async (orm) => {
      const sweep = await sweeper(orm, { batchSize: 2, maxBatches: 2 });
      expect(await sweep.sweepOnce()).to.deep.include({ idempotencyRecords: 4 });
      expect(await sweep.sweepOnce()).to.deep.include({ idempotencyRecords: 4 });
      expect(await sweep.sweepOnce()).to.deep.include({ idempotencyRecords: 3 });
      expect((await keys(orm)).idempotency).to.deep.equal(['lease-running', 'retention-running']);
    });
  });

  // Several sessions are a PostgreSQL server's (the embedded database is one session of one process).
  it('one instance at a time: while another holds the sweep lock, a round is skipped and deletes nothing', async () => {
    await withSweepDatabase(async (orm) => {
      const before = await keys(orm);
      const other = await (await orm.em.getConnection().getNativeClient()).connect();
      try {
        await other.query('select pg_advisory_lock(7302113036)');
        expect(await (await sweeper(orm)).sweepOnce()).to.equal('skipped');
        expect(await keys(orm)).to.deep.equal(before);
      } finally {
        await other.query('select pg_advisory_unlock(7302113036)');
        other.release();
      }
      expect(await (await sweeper(orm)).sweepOnce()).to.not.equal('skipped');
    }, withServerDatabase);
  });

  // R47: behind a transaction-mode pooler without DATABASE_DIRECT_URL each batch locks in its own statement.
  it('with a lock per statement (behind a pooler, R47): the same rows go, in the same batches; while another session holds the lock the round is skipped', async () => {
    await withSweepDatabase(async (orm) => {
      const sweep = await sweeper(orm, { batchSize: 2, maxBatches: 2, lock: 'statement' });
      const other = await (await orm.em.getConnection().getNativeClient()).connect();
      try {
        await other.query('select pg_advisory_lock(7302113036)');
        expect(await sweep.sweepOnce()).to.equal('skipped');
      } finally {
        await other.query('select pg_advisory_unlock(7302113036)');
        other.release();
      }
      expect(await sweep.sweepOnce()).to.deep.equal({ idempotencyRecords: 4, rateLimitCounters: 2 });
      expect(await sweep.sweepOnce()).to.deep.include({ idempotencyRecords: 4 });
      expect(await sweep.sweepOnce()).to.deep.include({ idempotencyRecords: 3 });
      expect(await keys(orm)).to.deep.equal({
        idempotency: ['lease-running', 'retention-running'],
        counters: ['sweep-test:no-expiry', 'sweep-test:window-running'],
      });
    }, withServerDatabase);
  });

  it('a swept key is used again as new (R14)', async () => {
    await withSweepDatabase(async (orm, customerId) => {
      await (await sweeper(orm)).sweepOnce();
      const store = new PgIdempotencyStore({ sql: await createSql(orm), clock: new FixedClock(NOW), leaseMs: 60_000, renewBelowMs: 30_000, retentionMs: 24 * HOUR });
      const outcome = await store.claim({ customerId, mode: 'live' }, 'retention-passed-0', 'b'.repeat(64), NOW);
      expect(outcome.kind).to.equal('claimed');
      store.close();
    });
  });
});
