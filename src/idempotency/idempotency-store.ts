// Idempotency records (rulings R11 to R14, R30). The claim is atomic through the primary key
// (customer, product, operation, key): INSERT ... ON CONFLICT DO NOTHING, never read-then-write.
// lease_expires_at doubles as the fencing token of a claim: a takeover only happens once the
// old lease has passed and sets a later one, so two claims never share a value, and completion()
// and release() touch only the claim they were given.
import { EVIDENCE_REPORTS_PRODUCT } from '../plans/product-entitlement.entity.ts';
import { statement, type Sql } from '../db/sql.ts';
import { EVIDENCE_REPORT_OPERATION } from '../usage/usage-record.entity.ts';
import type { Logger } from 'pino';
import type { Clock } from '../shared/clock.ts';
import { describeCause } from '../shared/describe-cause.ts';
import { ReleaseRetry } from './release-retry.ts';

export interface IdempotencyClaim {
  readonly customerId: string;
  readonly key: string;
  readonly leaseExpiresAt: string;
}

/** What the report's transaction writes to complete a claim (ruling R15). */
export interface IdempotencyCompletion {
  readonly key: string;
  readonly leaseExpiresAt: string;
  readonly expiresAt: string;
}

export type ClaimOutcome =
  | { kind: 'claimed'; claim: IdempotencyClaim }
  | { kind: 'replay'; reportId: string | null }
  | { kind: 'conflict' }
  | { kind: 'in_progress' };

interface RecordRow {
  fingerprint: string;
  status: 'in_progress' | 'completed';
  lease_expires_at: Date | string;
  expires_at: Date | string | null;
  report_id: string | null;
}

const PK = `customer_id = $1 and product = '${EVIDENCE_REPORTS_PRODUCT}' and operation = '${EVIDENCE_REPORT_OPERATION}' and idempotency_key = $2`;

const INSERT = statement(
  'idempotency_claim',
  `insert into idempotency_record
  (customer_id, product, operation, idempotency_key, fingerprint, status, lease_expires_at, created_at)
  values ($1, '${EVIDENCE_REPORTS_PRODUCT}', '${EVIDENCE_REPORT_OPERATION}', $2, $3, 'in_progress', $4, $5)
  on conflict do nothing returning 1 as claimed`,
);
const SELECT = statement(
  'idempotency_read',
  `select fingerprint, status, lease_expires_at, expires_at, report_id from idempotency_record where ${PK}`,
);
// Takes over a claim whose lease passed (a crashed process) or a completed key past retention.
const TAKE_OVER = statement(
  'idempotency_take_over',
  `update idempotency_record set fingerprint = $3, status = 'in_progress', lease_expires_at = $4,
  report_id = null, completed_at = null, expires_at = null, created_at = $5
  where ${PK} and ((status = 'in_progress' and lease_expires_at <= $5) or (status = 'completed' and expires_at <= $5))`,
);
const RELEASE = statement(
  'idempotency_release',
  `delete from idempotency_record where ${PK} and status = 'in_progress' and lease_expires_at = $3`,
);

const MAX_ATTEMPTS = 4;

export interface IdempotencyStoreOptions {
  sql: Sql;
  leaseMs: number;
  retentionMs: number;
  clock: Clock;
  log?: Pick<Logger, 'warn' | 'info'>;
}

export class IdempotencyStore {
  readonly #options: IdempotencyStoreOptions;
  readonly #retry: ReleaseRetry;

  constructor(options: IdempotencyStoreOptions) {
    this.#options = options;
    this.#retry = new ReleaseRetry({ release: (claim) => this.#releaseOnce(claim), clock: options.clock, log: options.log });
  }

  /** Throws on a database failure; the stage maps that to idempotency_unavailable. */
  async claim(customerId: string, key: string, fingerprint: string, now: Date): Promise<ClaimOutcome> {
    const { sql } = this.#options;
    const nowIso = now.toISOString();
    const lease = new Date(now.getTime() + this.#options.leaseMs).toISOString();
    const claimed: ClaimOutcome = { kind: 'claimed', claim: { customerId, key, leaseExpiresAt: lease } };
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const inserted = await sql.rows(INSERT, [customerId, key, fingerprint, lease, nowIso]);
      if (inserted.length === 1) return claimed;
      const row = (await sql.rows<RecordRow>(SELECT, [customerId, key]))[0];
      if (!row) continue; // released between our insert and read: try the insert again
      const live =
        row.status === 'completed'
          ? row.expires_at !== null && new Date(row.expires_at) > now
          : new Date(row.lease_expires_at) > now;
      if (live) {
        // Ruling R30: another request under this key is a conflict whatever the original's state.
        if (row.fingerprint !== fingerprint) return { kind: 'conflict' };
        if (row.status === 'in_progress') return { kind: 'in_progress' };
        return { kind: 'replay', reportId: row.report_id };
      }
      if ((await sql.count(TAKE_OVER, [customerId, key, fingerprint, lease, nowIso])) === 1) return claimed;
    }
    throw new Error('idempotency claim contended');
  }

  /**
   * What completing this claim writes, in the report's own transaction (ruling R15): only while
   * the claim is still ours (its lease value is the fencing token), kept for the retention.
   */
  completion(claim: IdempotencyClaim, now: Date): IdempotencyCompletion {
    const expiresAt = new Date(now.getTime() + this.#options.retentionMs).toISOString();
    return { key: claim.key, leaseExpiresAt: claim.leaseExpiresAt, expiresAt };
  }

  /**
   * Ruling R14: a failed request gives its key back so the client can retry with it. Never
   * throws: a release that fails is retried in the background until it succeeds or its lease
   * passes (R36), so the key is free again as soon as the database answers.
   */
  async release(claim: IdempotencyClaim): Promise<void> {
    try {
      await this.#releaseOnce(claim);
    } catch (cause) {
      this.#options.log?.warn({ cause: describeCause(cause) }, 'could not release an idempotency claim; retrying in the background');
      this.#retry.add(claim);
    }
  }

  /** Claims whose release failed and is still being retried. */
  get pendingReleases(): number {
    return this.#retry.size;
  }

  /** Retries the failed releases now (tests; the background timer does it by itself). */
  retryReleases(): Promise<void> {
    return this.#retry.retryNow();
  }

  close(): void {
    this.#retry.stop();
  }

  async #releaseOnce(claim: IdempotencyClaim): Promise<void> {
    await this.#options.sql.count(RELEASE, [claim.customerId, claim.key, claim.leaseExpiresAt]);
  }
}
