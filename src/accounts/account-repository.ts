// Customers and their API keys as the admin command line and the demo customer change them
// (operator-interface.md, rulings R19, R21, R26, R53). The request path reads the same rows in
// one statement through caller_facts (caller-facts.sql, PgApiKeyDirectory); every write to
// these tables is here, so a rule about keys or customers has one home.
//
// Methods add to the unit of work of the EntityManager they were given; the caller owns the
// transaction and flushes (so bootstrap can create a customer, its plan and its key at once).
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../db/uuid.ts';
import { ApiKey, type ApiKeyStatus } from './api-key.entity.ts';
import { generateApiKeySecret } from './api-key-secret.ts';
import { Customer, type CustomerStatus } from './customer.entity.ts';
import type { Mode } from './mode.ts';

export interface CreatedKey {
  apiKeyId: string;
  /** The key itself: it exists only here, is printed once and never stored or logged (R26). */
  apiKey: string;
}

export class AccountRepository {
  readonly #em: EntityManager;

  constructor(em: EntityManager) {
    this.#em = em;
  }

  /**
   * A malformed id is as unknown as a missing one. `forUpdate` locks the customer's row until the
   * caller's transaction ends: changes to what hangs off a customer (its active subscription, its
   * entitlement row) that read before they write are then serialized per customer, so two at
   * once both succeed instead of one meeting a unique index.
   */
  async customer(customerId: string, options: { forUpdate?: boolean } = {}): Promise<Customer | null> {
    if (!isUuid(customerId)) return null;
    return this.#em.findOne(Customer, customerId, options.forUpdate ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  /**
   * `forUpdate` locks the key's row until the caller's transaction ends: a status change decided
   * on what it read cannot then be overtaken by another one (an activation that read "inactive"
   * must not undo a revocation committed meanwhile).
   */
  async apiKey(apiKeyId: string, options: { forUpdate?: boolean } = {}): Promise<ApiKey | null> {
    if (!isUuid(apiKeyId)) return null;
    return this.#em.findOne(ApiKey, apiKeyId, options.forUpdate ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  }

  /** Whether the database holds any customer (the demo customer goes only into an empty one). */
  async anyCustomer(): Promise<boolean> {
    return (await this.#em.count(Customer, {})) > 0;
  }

  createCustomer(name: string): Customer {
    return this.#em.create(Customer, { name });
  }

  /** R19, R21: an inactive customer's keys are all invalid from the next request on. */
  setCustomerStatus(customer: Customer, status: CustomerStatus): void {
    customer.status = status;
  }

  /** A new key of `mode` (R53): only its SHA-256 and display prefix are stored (R26). */
  addKey(customer: Customer, name: string | null, mode: Mode): CreatedKey {
    const secret = generateApiKeySecret(mode);
    const key = this.#em.create(ApiKey, { customer, name, keyHash: secret.keyHash, prefix: secret.prefix, mode });
    return { apiKeyId: key.id, apiKey: secret.key };
  }

  /** Whether `status` may follow the key's current one: revocation is final (R26). */
  static canChangeStatus(from: ApiKeyStatus, to: ApiKeyStatus): boolean {
    return from !== 'revoked' || to === 'revoked';
  }

  /** Applies on the next request (R21); the time of a revocation is kept. */
  setKeyStatus(key: ApiKey, status: ApiKeyStatus): void {
    if (key.status === status) return;
    key.status = status;
    if (status === 'revoked') key.revokedAt = new Date();
  }

  async keysOf(customer: Customer): Promise<ApiKey[]> {
    return this.#em.find(ApiKey, { customer }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }
}
