// API-key authentication (spec section 5, rulings R5, R19, R21, R26, R32): the key's SHA-256
// is looked up on every request (no caching of decisions, R21); a key that is not active, or
// whose customer is not active, is the same 401 invalid_api_key (the lifecycle is not
// revealed); a lookup that cannot complete fails closed with 503.
import { hashApiKey } from '../accounts/api-key-secret.ts';
import { statement, type Sql } from '../db/sql.ts';
import type { Logger } from 'pino';
import { ApiError } from '../errors/catalogue.ts';
import type { Clock } from '../shared/clock.ts';
import type { Principal } from './principal.ts';
import { describeCause } from '../shared/describe-cause.ts';

interface KeyRow {
  api_key_id: string;
  customer_id: string;
  key_status: string;
  customer_status: string;
}

const LOOKUP = statement(
  'auth_lookup',
  `select k.id as api_key_id, k.customer_id, k.status as key_status, c.status as customer_status
  from api_key k join customer c on c.id = k.customer_id where k.key_hash = $1`,
);

// Ruling R32: at most once a minute per key, and the condition keeps several instances from
// writing more often than that between them.
const TOUCH = statement(
  'auth_touch',
  `update api_key set last_used_at = $1 where id = $2
  and (last_used_at is null or last_used_at < $1::timestamptz - interval '1 minute')`,
);

const TOUCH_INTERVAL_MS = 60_000;

export interface ApiKeyAuthenticatorDeps {
  sql: Sql;
  clock: Clock;
  log: Logger;
}

export class ApiKeyAuthenticator {
  readonly #deps: ApiKeyAuthenticatorDeps;
  readonly #lastTouched = new Map<string, number>();

  constructor(deps: ApiKeyAuthenticatorDeps) {
    this.#deps = deps;
  }

  async authenticate(apiKey: string): Promise<Principal> {
    let row: KeyRow | undefined;
    try {
      row = (await this.#deps.sql.rows<KeyRow>(LOOKUP, [hashApiKey(apiKey)]))[0];
    } catch (cause) {
      throw new ApiError('api_key_authentication_unavailable', { cause });
    }
    if (!row || row.key_status !== 'active' || row.customer_status !== 'active') {
      throw new ApiError('invalid_api_key');
    }
    this.#touch(row.api_key_id);
    return { customerId: row.customer_id, apiKeyId: row.api_key_id };
  }

  /** Records lastUsedAt outside the request's critical path (R32): never awaited, never fatal. */
  #touch(apiKeyId: string): void {
    const now = this.#deps.clock.now();
    const last = this.#lastTouched.get(apiKeyId);
    if (last !== undefined && now.getTime() - last < TOUCH_INTERVAL_MS) return;
    this.#lastTouched.set(apiKeyId, now.getTime());
    if (this.#lastTouched.size > 100_000) this.#lastTouched.clear();
    const iso = now.toISOString();
    this.#deps.sql
      .count(TOUCH, [iso, apiKeyId])
      .catch((err: unknown) => this.#deps.log.warn({ cause: describeCause(err) }, 'could not record key last use'));
  }
}
