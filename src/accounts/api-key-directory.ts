// The port of step 1 (spec section 5, one read of the caller's facts): one read
// gives the key, its customer's status and the facts later steps judge (the product
// entitlement for step 4, the active plan and the month's usage for step 6 and GET usage).
// Adapters: PgApiKeyDirectory (caller_facts, one statement) and FakeApiKeyDirectory.
import type { MonthPeriod } from '../usage/period.ts';
import type { Mode } from './mode.ts';
import type { PlanUsage } from '../usage/plan-usage.ts';

/** A fact of a later step: its value, or that it could not be read (that step fails closed). */
export type Fact<T> = { readonly readable: true; readonly value: T } | { readonly readable: false };

export const readable = <T>(value: T): Fact<T> => ({ readable: true, value });
export const unreadable: Fact<never> = Object.freeze({ readable: false });

export interface CallerFacts {
  readonly apiKeyId: string;
  readonly customerId: string;
  /** R19: an inactive, deactivated or revoked key, or a key of an inactive customer, is invalid. */
  readonly keyActive: boolean;
  readonly customerActive: boolean;
  /** R53: the key's mode; the plan usage below is that mode's ledger. */
  readonly mode: Mode;
  /** Step 4 (R19). */
  readonly entitled: Fact<boolean>;
  /** Step 6 and GET usage (R17, R18): null without an active plan. */
  readonly planUsage: Fact<PlanUsage | null>;
}

export interface ApiKeyDirectory {
  /**
   * The facts of the key with this SHA-256, for the month `period`; undefined for an unknown key.
   * Throws PersistenceFailure when the read cannot complete.
   */
  callerFacts(keyHash: string, period: MonthPeriod): Promise<CallerFacts | undefined>;
  /** R32: records the key's last use, at most once a minute per key across instances. */
  recordUse(apiKeyId: string, at: Date): Promise<void>;
}
