// Ruling R36: bounded tables. Idempotency records whose retention has passed, abandoned claims
// whose lease has passed (a crashed process), and rate-limit counters whose window has passed
// are deleted periodically, in bounded batches, by one instance at a time: the instance that
// takes a session-level advisory lock sweeps, the others skip that round. A swept key may be
// used again as new (R14). Each batch is its own short statement, so the sweep never holds
// locks on many rows, and every statement is bounded like any other (R33).
//
// R47: a session-level lock needs a session of its own. Behind a transaction-mode pooler the
// pool given here is DATABASE_DIRECT_URL's; when that is not set (lock 'statement'), each batch
// takes a transaction-level lock inside its own statement instead, so nothing depends on which
// server connection the pooler picks and no lock outlives its statement: batches of two
// instances never run at the same moment, and a round whose first batch finds the lock taken is
// skipped.
import type pg from 'pg';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.ts';
import { describeCause } from '../shared/describe-cause.ts';

// Any constant, the same in every instance; distinct from the migration lock.
export const SWEEP_LOCK_KEY = 7_302_113_036;

// Completed records past retention (only completed records have expires_at), then claims past
// their lease; both through an index (Migration20261123000000_sweep_indexes).
const DELETE_IDEMPOTENCY = `delete from idempotency_record where ctid = any(array(
    select ctid from idempotency_record where expires_at <= $1
    union all
    select ctid from idempotency_record where status = 'in_progress' and lease_expires_at <= $1
    limit $2))`;
// rate-limiter-flexible keeps `expire` in epoch milliseconds of the process clock.
const DELETE_RATE_LIMIT = `delete from rate_limit_counter where ctid = any(array(
    select ctid from rate_limit_counter where expire < $1 limit $2))`;

interface SweepResult {
  idempotencyRecords: number;
  rateLimitCounters: number;
}

interface ExpirySweeperOptions {
  pool: pg.Pool;
  clock: Clock;
  log?: Pick<Logger, 'info' | 'warn' | 'debug'>;
  /** IDEMPOTENCY_SWEEP_INTERVAL_SECONDS, in ms. */
  intervalMs: number;
  batchSize?: number;
  /** Batches per table and round; what is left waits for the next round. */
  maxBatches?: number;
  /** 'session' (default): one session-level lock per round; 'statement': one per batch (R47). */
  lock?: 'session' | 'statement';
}

/** A batch under a transaction-level lock taken in the same statement (R47, behind a pooler). */
const underStatementLock = (deleteText: string): string =>
  `with sweep_lock as materialized (select pg_try_advisory_xact_lock($3) as locked),
   gone as (${deleteText.replace(/^delete from (\w+) where /, 'delete from $1 where (select locked from sweep_lock) and ')} returning 1)
   select (select locked from sweep_lock) as locked, (select count(*) from gone)::int as deleted`;

export class ExpirySweeper {
  readonly #options: ExpirySweeperOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;

  constructor(options: ExpirySweeperOptions) {
    this.#options = options;
  }

  /** Sweeps every interval; the first round comes after a random part of one (instances started together spread out). */
  start(): void {
    const { intervalMs } = this.#options;
    const next = (delayMs: number) => {
      this.#timer = setTimeout(() => {
        this.#running = this.sweepOnce()
          .catch((cause: unknown) => this.#options.log?.warn({ cause: describeCause(cause) }, 'expiry sweep failed'))
          .finally(() => {
            this.#running = undefined;
            if (this.#timer !== undefined) next(intervalMs);
          });
      }, delayMs);
      this.#timer.unref();
    };
    next(Math.round(intervalMs * (0.5 + Math.random() / 2)));
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** One round: 'skipped' when another instance holds the sweep lock. */
  async sweepOnce(): Promise<SweepResult | 'skipped'> {
    if (this.#options.lock === 'statement') return this.#sweepUnderStatementLocks();
    const client = await this.#options.pool.connect();
    let broken: Error | undefined;
    try {
      const { rows } = await client.query<{ locked: boolean }>('select pg_try_advisory_lock($1) as locked', [SWEEP_LOCK_KEY]);
      if (rows[0]?.locked !== true) return 'skipped';
      try {
        const result = {
          idempotencyRecords: await this.#deleteBatches(client, DELETE_IDEMPOTENCY, this.#options.clock.now().toISOString()),
          rateLimitCounters: await this.#deleteBatches(client, DELETE_RATE_LIMIT, Date.now()),
        };
        if (result.idempotencyRecords + result.rateLimitCounters > 0) this.#options.log?.info(result, 'expired records swept');
        return result;
      } finally {
        await client.query('select pg_advisory_unlock($1)', [SWEEP_LOCK_KEY]);
      }
    } catch (error) {
      // A connection that failed may still hold the lock: destroy it, which releases the lock.
      broken = error instanceof Error ? error : new Error('sweep failed');
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async #sweepUnderStatementLocks(): Promise<SweepResult | 'skipped'> {
    const { pool, clock } = this.#options;
    const batchSize = this.#options.batchSize ?? 1_000;
    const sweep = async (text: string, before: string | number): Promise<number | 'skipped'> => {
      let deleted = 0;
      for (let batch = 0; batch < (this.#options.maxBatches ?? 100); batch++) {
        const { rows } = await pool.query<{ locked: boolean; deleted: number }>(underStatementLock(text), [before, batchSize, SWEEP_LOCK_KEY]);
        if (rows[0]?.locked !== true) return batch === 0 ? 'skipped' : deleted;
        deleted += rows[0].deleted;
        if (rows[0].deleted < batchSize) break;
      }
      return deleted;
    };
    const idempotencyRecords = await sweep(DELETE_IDEMPOTENCY, clock.now().toISOString());
    if (idempotencyRecords === 'skipped') return 'skipped';
    const rateLimitCounters = await sweep(DELETE_RATE_LIMIT, Date.now());
    const result = { idempotencyRecords, rateLimitCounters: rateLimitCounters === 'skipped' ? 0 : rateLimitCounters };
    if (result.idempotencyRecords + result.rateLimitCounters > 0) this.#options.log?.info(result, 'expired records swept');
    return result;
  }

  async #deleteBatches(client: pg.PoolClient, text: string, before: string | number): Promise<number> {
    const batchSize = this.#options.batchSize ?? 1_000;
    let deleted = 0;
    for (let batch = 0; batch < (this.#options.maxBatches ?? 100); batch++) {
      const count = (await client.query(text, [before, batchSize])).rowCount ?? 0;
      deleted += count;
      if (count < batchSize) break;
    }
    return deleted;
  }
}
