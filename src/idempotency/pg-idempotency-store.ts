// Idempotency records on PostgreSQL (rulings R11 to R14, R30, R36). The claim is atomic through
// the primary key (customer, product, operation, mode, key; mode by R53): INSERT ... ON CONFLICT DO NOTHING, never
// read-then-write. lease_expires_at doubles as the fencing token of a claim: a takeover only
// happens once the old lease has passed and sets a later one, so two claims never share a
// value, and completion() and release() touch only the claim they were given. A key that is
// taken is read together with its report's stored result, so a replay costs one more
// statement, not two.
import type { Logger } from 'pino';
import { PersistenceFailure } from '../db/persistence-failure.ts';
import { statement, type Sql } from '../db/sql.ts';
import { EVIDENCE_REPORTS_PRODUCT } from '../plans/product-entitlement.entity.ts';
import type { Clock } from '../shared/clock.ts';
import { EVIDENCE_REPORT_OPERATION } from '../usage/usage-record.entity.ts';
import type { ClaimOutcome, IdempotencyClaim, IdempotencyCompletion, IdempotencyOwner, IdempotencyStore } from './idempotency-store.ts';
import { ReleaseRetry } from './release-retry.ts';

interface RecordRow {
  fingerprint: string;
  status: 'in_progress' | 'completed';
  lease_expires_at: Date | string;
  expires_at: Date | string | null;
  report_id: string | null;
  result: unknown;
}

// $1 customer, $2 product, $3 operation, $4 key: the scope of R12; $5 the mode (R53).
const SCOPE = 'customer_id = $1 and product = $2 and operation = $3 and idempotency_key = $4 and mode = $5';

const INSERT = statement(
  'idempotency_claim',
  `insert into idempotency_record
  (customer_id, product, operation, idempotency_key, mode, fingerprint, status, lease_expires_at, created_at)
  values ($1, $2, $3, $4, $5, $6, 'in_progress', $7, $8)
  on conflict do nothing returning 1 as claimed`,
);
const SELECT = statement(
  'idempotency_read',
  `select r.fingerprint, r.status, r.lease_expires_at, r.expires_at, r.report_id, e.result
  from idempotency_record r left join evidence_report e on e.id = r.report_id and e.customer_id = r.customer_id
  where r.customer_id = $1 and r.product = $2 and r.operation = $3 and r.idempotency_key = $4 and r.mode = $5`,
);
// Takes over a claim whose lease passed (a crashed process) or a completed key past retention.
const TAKE_OVER = statement(
  'idempotency_take_over',
  `update idempotency_record set fingerprint = $6, status = 'in_progress', lease_expires_at = $7,
  report_id = null, completed_at = null, expires_at = null, created_at = $8
  where ${SCOPE} and ((status = 'in_progress' and lease_expires_at <= $8) or (status = 'completed' and expires_at <= $8))`,
);
// Renews a claim that is still ours (its token unchanged): a later lease, so a later token.
const RENEW = statement(
  'idempotency_renew',
  `update idempotency_record set lease_expires_at = $7
  where ${SCOPE} and status = 'in_progress' and lease_expires_at = $6`,
);
const RELEASE = statement(
  'idempotency_release',
  `delete from idempotency_record where ${SCOPE} and status = 'in_progress' and lease_expires_at = $6`,
);

/** The parameters of SCOPE for a claim's customer, mode and key. */
function scopeOf({ customerId, mode, key }: Pick<IdempotencyClaim, 'customerId' | 'mode' | 'key'>): unknown[] {
  return [customerId, EVIDENCE_REPORTS_PRODUCT, EVIDENCE_REPORT_OPERATION, key, mode];
}

const MAX_ATTEMPTS = 4;
/** R33's defaults: DB_CONNECT_TIMEOUT_MS + DB_STATEMENT_TIMEOUT_MS + 1 s. */
const DEFAULT_SETTLE_MS = 8_000;

interface PgIdempotencyStoreOptions {
  sql: Sql;
  leaseMs: number;
  /** keep() renews a claim with less than this left of its lease (idempotencyRenewBelowMs). */
  renewBelowMs: number;
  /**
   * How long a claim's write whose answer was lost may still commit (R33: the connect and
   * statement bounds and a second); its background release keeps looking for it that long.
   */
  settleMs?: number;
  retentionMs: number;
  clock: Clock;
  log?: Pick<Logger, 'warn' | 'info'>;
}

export class PgIdempotencyStore implements IdempotencyStore {
  readonly #options: PgIdempotencyStoreOptions;
  readonly #retry: ReleaseRetry<IdempotencyClaim>;

  constructor(options: PgIdempotencyStoreOptions) {
    this.#options = options;
    this.#retry = new ReleaseRetry<IdempotencyClaim>({ release: (claim) => this.#releaseOnce(claim), clock: options.clock, log: options.log });
  }

  async claim({ customerId, mode }: IdempotencyOwner, key: string, fingerprint: string, now: Date): Promise<ClaimOutcome> {
    const { sql } = this.#options;
    const scope = scopeOf({ customerId, mode, key });
    const nowIso = now.toISOString();
    const lease = new Date(now.getTime() + this.#options.leaseMs).toISOString();
    const claimed: ClaimOutcome = { kind: 'claimed', claim: { customerId, mode, key, leaseExpiresAt: lease } };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const inserted = await this.#orReleaseLater(claimed.claim, () => sql.rows(INSERT, [...scope, fingerprint, lease, nowIso]));
      if (inserted.length === 1) return claimed;
      const row = (await sql.rows<RecordRow>(SELECT, scope))[0];
      if (!row) continue; // released between our insert and read: try the insert again
      const live =
        row.status === 'completed'
          ? row.expires_at !== null && new Date(row.expires_at) > now
          : new Date(row.lease_expires_at) > now;
      if (live) {
        // Ruling R30: another request under this key is a conflict whatever the original's state.
        if (row.fingerprint !== fingerprint) return { kind: 'conflict' };
        if (row.status === 'in_progress') return { kind: 'in_progress' };
        return { kind: 'replay', reportId: row.report_id, result: row.result ?? undefined };
      }
      if ((await this.#orReleaseLater(claimed.claim, () => sql.count(TAKE_OVER, [...scope, fingerprint, lease, nowIso]))) === 1) return claimed;
    }
    throw new PersistenceFailure('unavailable', { cause: new Error('idempotency claim contended') });
  }

  async keep(claim: IdempotencyClaim, now: Date): Promise<IdempotencyClaim> {
    const { sql, leaseMs, renewBelowMs } = this.#options;
    if (Date.parse(claim.leaseExpiresAt) - now.getTime() >= renewBelowMs) return claim;
    const renewed = { ...claim, leaseExpiresAt: new Date(now.getTime() + leaseMs).toISOString() };
    // A failed statement throws PersistenceFailure('unavailable') from sql itself.
    if ((await this.#orReleaseLater(renewed, () => sql.count(RENEW, [...scopeOf(claim), claim.leaseExpiresAt, renewed.leaseExpiresAt]))) !== 1) {
      throw new PersistenceFailure('claim_lost');
    }
    return renewed;
  }

  completion(claim: IdempotencyClaim, now: Date): IdempotencyCompletion {
    const expiresAt = new Date(now.getTime() + this.#options.retentionMs).toISOString();
    return { key: claim.key, leaseExpiresAt: claim.leaseExpiresAt, expiresAt };
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    try {
      await this.#releaseOnce(claim);
    } catch {
      // The request's own line already names the failed dependency (one line per failure,
      // R41); the background retry logs when releases start and stop failing.
      this.#retry.add(claim);
    }
  }

  close(): void {
    this.#retry.stop();
  }

  async #releaseOnce(claim: IdempotencyClaim): Promise<number> {
    return this.#options.sql.count(RELEASE, [...scopeOf(claim), claim.leaseExpiresAt]);
  }

  /**
   * A write of a claim whose answer was lost may still have committed: the key would then stay in
   * progress for a whole lease with no request left to release it, and the client's retry would
   * be 409 for a minute (R14, R33). So a failed write schedules the release of the claim it may
   * have made; fenced by that claim's token, the release deletes nothing else.
   */
  async #orReleaseLater<T>(claim: IdempotencyClaim, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      this.#retry.add(claim, this.#options.settleMs ?? DEFAULT_SETTLE_MS);
      throw error;
    }
  }
}
