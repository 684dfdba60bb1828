// key create / revoke / deactivate / activate / list (operator-interface.md, ruling R26).
// The key itself exists only in createKey's result: it is printed once and never logged.
import type { EntityManager } from '@mikro-orm/postgresql';
import { AccountRepository, type CreatedKey } from '../accounts/account-repository.ts';
import type { ApiKeyStatus } from '../accounts/api-key.entity.ts';
import { isMode, MODES, type Mode } from '../accounts/mode.ts';
import { AdminInputError } from './admin-error.ts';
import { requireApiKey, requireCustomer, requireNonBlank } from './lookups.ts';

interface KeyListItem {
  apiKeyId: string;
  /** The label given at `key create --name`, so that an operator can tell keys apart; null without one. */
  name: string | null;
  prefix: string;
  status: ApiKeyStatus;
  /** R53: live or test. */
  mode: Mode;
  createdAt: string;
  lastUsedAt: string | null;
}

/** `--mode` (R53): live (the default) or test. */
export function requireMode(value: string | undefined): Mode {
  if (value === undefined) return 'live';
  if (!isMode(value)) throw new AdminInputError(`--mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(value)}`);
  return value;
}

export async function createKey(em: EntityManager, input: { customerId: string; name?: string; mode?: string }): Promise<CreatedKey> {
  const name = input.name === undefined ? null : requireNonBlank(input.name, '--name (key name)');
  const mode = requireMode(input.mode);
  return em.transactional(async (tx) => {
    const created = new AccountRepository(tx).addKey(await requireCustomer(tx, input.customerId), name, mode);
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
    // Locked until the change commits: revocation stays final against a concurrent activation.
    const key = await requireApiKey(tx, input.apiKeyId, { forUpdate: true });
    if (!AccountRepository.canChangeStatus(key.status, input.status)) {
      throw new AdminInputError(`Key ${key.id} is revoked; revocation is final, create a new key`);
    }
    new AccountRepository(tx).setKeyStatus(key, input.status);
    await tx.flush();
    return { apiKeyId: key.id, status: key.status };
  });
}

/** Keys without secrets: never the hash (R26); timestamps RFC 3339 UTC with Z (R27). */
export async function listKeys(em: EntityManager, input: { customerId: string }): Promise<{ keys: KeyListItem[] }> {
  const customer = await requireCustomer(em, input.customerId);
  const keys = await new AccountRepository(em).keysOf(customer);
  return {
    keys: keys.map((key) => ({
      apiKeyId: key.id,
      name: key.name ?? null,
      prefix: key.prefix,
      status: key.status,
      mode: key.mode,
      createdAt: key.createdAt.toISOString(),
      lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    })),
  };
}
