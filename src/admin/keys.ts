// key create / revoke / deactivate / activate / list (operator-interface.md, ruling R26).
// The key itself exists only in createKey's result: it is printed once and never logged.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey, type ApiKeyStatus } from '../accounts/api-key.entity.ts';
import { generateApiKeySecret } from '../accounts/api-key-secret.ts';
import type { Customer } from '../accounts/customer.entity.ts';
import { AdminInputError } from './admin-error.ts';
import { requireApiKey, requireCustomer, requireNonBlank } from './lookups.ts';

export interface CreatedKey {
  apiKeyId: string;
  apiKey: string;
}

export interface KeyListItem {
  apiKeyId: string;
  prefix: string;
  status: ApiKeyStatus;
  createdAt: string;
  lastUsedAt: string | null;
}

/** Adds a key to the unit of work of `tx`; the caller flushes. Shared with bootstrap. */
export function addKey(tx: EntityManager, customer: Customer, name: string | null): CreatedKey {
  const secret = generateApiKeySecret();
  const key = tx.create(ApiKey, { customer, name, keyHash: secret.keyHash, prefix: secret.prefix });
  return { apiKeyId: key.id, apiKey: secret.key };
}

export async function createKey(em: EntityManager, input: { customerId: string; name?: string }): Promise<CreatedKey> {
  const name = input.name === undefined ? null : requireNonBlank(input.name, 'key name');
  return em.transactional(async (tx) => {
    const created = addKey(tx, await requireCustomer(tx, input.customerId), name);
    await tx.flush();
    return created;
  });
}

/** Status changes apply on the next request (R21). Revocation is final. */
export async function setKeyStatus(
  em: EntityManager,
  input: { apiKeyId: string; status: ApiKeyStatus },
): Promise<{ apiKeyId: string; status: ApiKeyStatus }> {
  return em.transactional(async (tx) => {
    const key = await requireApiKey(tx, input.apiKeyId);
    if (key.status === 'revoked' && input.status !== 'revoked') {
      throw new AdminInputError(`Key ${key.id} is revoked; revocation is final, create a new key`);
    }
    if (key.status !== input.status) {
      key.status = input.status;
      if (input.status === 'revoked') key.revokedAt = new Date();
      await tx.flush();
    }
    return { apiKeyId: key.id, status: key.status };
  });
}

/** Keys without secrets: never the hash (R26); timestamps RFC 3339 UTC with Z (R27). */
export async function listKeys(em: EntityManager, input: { customerId: string }): Promise<{ keys: KeyListItem[] }> {
  const customer = await requireCustomer(em, input.customerId);
  const keys = await em.find(ApiKey, { customer }, { orderBy: { createdAt: 'asc', id: 'asc' } });
  return {
    keys: keys.map((key) => ({
      apiKeyId: key.id,
      prefix: key.prefix,
      status: key.status,
      createdAt: key.createdAt.toISOString(),
      lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    })),
  };
}
