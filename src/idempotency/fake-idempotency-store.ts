// An in-memory IdempotencyStore for unit tests, with the semantics of the
// PostgreSQL one (R12 scope per customer and key, R13 replay, R14 release and lease, R30
// conflict). FakeReportRepository completes claims, as the report's transaction does (R15).
import { PersistenceFailure } from '../db/persistence-failure.ts';
import type { ClaimOutcome, IdempotencyClaim, IdempotencyCompletion, IdempotencyOwner, IdempotencyStore } from './idempotency-store.ts';

interface FakeRecord {
  fingerprint: string;
  leaseExpiresAt: string;
  completed?: { reportId: string; result: unknown; expiresAt: string };
}

/** A record's place: R12's scope per customer and key, in the key's mode (R53). */
function recordId({ customerId, mode }: IdempotencyOwner, key: string): string {
  return `${customerId}\u0000${mode}\u0000${key}`;
}

export class FakeIdempotencyStore implements IdempotencyStore {
  readonly #records = new Map<string, FakeRecord>();
  readonly #leaseMs: number;
  readonly #retentionMs: number;
  unavailable = false;
  readonly released: IdempotencyClaim[] = [];

  readonly #renewBelowMs: number;
  /** Claims renewed by keep(). */
  renewals = 0;

  constructor(options: { leaseMs?: number; renewBelowMs?: number; retentionMs?: number } = {}) {
    this.#leaseMs = options.leaseMs ?? 65_000;
    this.#renewBelowMs = options.renewBelowMs ?? 60_000;
    this.#retentionMs = options.retentionMs ?? 86_400_000;
  }

  async claim({ customerId, mode }: IdempotencyOwner, key: string, fingerprint: string, now: Date): Promise<ClaimOutcome> {
    if (this.unavailable) throw new PersistenceFailure('unavailable');
    const id = recordId({ customerId, mode }, key);
    const existing = this.#records.get(id);
    const live = existing && (existing.completed ? new Date(existing.completed.expiresAt) > now : new Date(existing.leaseExpiresAt) > now);
    if (existing && live) {
      if (existing.fingerprint !== fingerprint) return { kind: 'conflict' };
      if (!existing.completed) return { kind: 'in_progress' };
      return { kind: 'replay', reportId: existing.completed.reportId, result: existing.completed.result };
    }
    const leaseExpiresAt = new Date(now.getTime() + this.#leaseMs).toISOString();
    this.#records.set(id, { fingerprint, leaseExpiresAt });
    return { kind: 'claimed', claim: { customerId, mode, key, leaseExpiresAt } };
  }

  async keep(claim: IdempotencyClaim, now: Date): Promise<IdempotencyClaim> {
    if (Date.parse(claim.leaseExpiresAt) - now.getTime() >= this.#renewBelowMs) return claim;
    if (this.unavailable) throw new PersistenceFailure('unavailable');
    const record = this.#records.get(recordId(claim, claim.key));
    if (!record || record.completed || record.leaseExpiresAt !== claim.leaseExpiresAt) throw new PersistenceFailure('claim_lost');
    record.leaseExpiresAt = new Date(now.getTime() + this.#leaseMs).toISOString();
    this.renewals++;
    return { ...claim, leaseExpiresAt: record.leaseExpiresAt };
  }

  completion(claim: IdempotencyClaim, now: Date): IdempotencyCompletion {
    return { key: claim.key, leaseExpiresAt: claim.leaseExpiresAt, expiresAt: new Date(now.getTime() + this.#retentionMs).toISOString() };
  }

  async release(claim: IdempotencyClaim): Promise<void> {
    const id = recordId(claim, claim.key);
    const record = this.#records.get(id);
    if (record && !record.completed && record.leaseExpiresAt === claim.leaseExpiresAt) this.#records.delete(id);
    this.released.push(claim);
  }

  /** The report's transaction completing the claim (R15); false when the claim is no longer ours. */
  complete(owner: IdempotencyOwner, completion: IdempotencyCompletion, reportId: string, result: unknown): boolean {
    const record = this.#records.get(recordId(owner, completion.key));
    if (!record || record.completed || record.leaseExpiresAt !== completion.leaseExpiresAt) return false;
    record.completed = { reportId, result, expiresAt: completion.expiresAt };
    return true;
  }

  /** Keys held in progress (a claim not released after a failure would show here). */
  inProgress(): number {
    return [...this.#records.values()].filter((record) => !record.completed).length;
  }
}
