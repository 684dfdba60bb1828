// The idempotency port of step 5 (spec 4.1, rulings R11 to R14, R30). Scope: customer +
// product + operation + key (R12), in the key's mode (R53). Adapters: PgIdempotencyStore and FakeIdempotencyStore.
import type { Mode } from '../accounts/mode.ts';

/** R12 scope's owner: the customer, in the key's mode (R53: test keys have a namespace of their own). */
export interface IdempotencyOwner {
  readonly customerId: string;
  readonly mode: Mode;
}

export interface IdempotencyClaim {
  readonly customerId: string;
  readonly mode: Mode;
  readonly key: string;
  /** Also the claim's fencing token: a takeover sets a later one (R14). */
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
  /** A completed key: the stored result of its report, read with the key (undefined when gone). */
  | { kind: 'replay'; reportId: string | null; result: unknown }
  | { kind: 'conflict' }
  | { kind: 'in_progress' };

export interface IdempotencyStore {
  /** Throws PersistenceFailure when the claim cannot be established. */
  claim(owner: IdempotencyOwner, key: string, fingerprint: string, now: Date): Promise<ClaimOutcome>;
  /**
   * R14: before the generator is asked, a claim with less of its lease left than one generation
   * needs is renewed to a full lease. Returns the claim to hold from now on (a renewal is a new
   * fencing token). Throws PersistenceFailure: 'claim_lost' when the key was taken over,
   * 'unavailable' when the renewal could not be made.
   */
  keep(claim: IdempotencyClaim, now: Date): Promise<IdempotencyClaim>;
  /** What completing this claim writes with the report (R15): kept for the retention. */
  completion(claim: IdempotencyClaim, now: Date): IdempotencyCompletion;
  /** R14: gives the key back after a failure. Never throws (a failed release is retried, R36). */
  release(claim: IdempotencyClaim): Promise<void>;
}
