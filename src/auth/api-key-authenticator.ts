// API-key authentication (spec section 5, rulings R5, R19, R21, R26, R32): the key's SHA-256
// is looked up on every request (no caching of decisions, R21), in one read that also brings
// the facts of later steps (one statement); a key that is not active, or whose customer is not
// active, is the same 401 invalid_api_key (the lifecycle is not revealed); a read that cannot
// complete fails closed with 503.
import type { Logger } from 'pino';
import { couldBeApiKey, hashApiKey } from '../accounts/api-key-secret.ts';
import type { ApiKeyDirectory } from '../accounts/api-key-directory.ts';
import { ApiError } from '../errors/catalogue.ts';
import type { Clock } from '../shared/clock.ts';
import { describeCause } from '../shared/describe-cause.ts';
import { monthPeriod } from '../usage/period.ts';
import type { Principal } from './principal.ts';

const RECORD_USE_INTERVAL_MS = 60_000;
const RECORD_USE_MEMORY = 100_000;

interface ApiKeyAuthenticatorDeps {
  keys: ApiKeyDirectory;
  clock: Clock;
  log: Pick<Logger, 'warn'>;
}

export class ApiKeyAuthenticator {
  readonly #deps: ApiKeyAuthenticatorDeps;
  readonly #lastRecorded = new Map<string, number>();

  constructor(deps: ApiKeyAuthenticatorDeps) {
    this.#deps = deps;
  }

  /** `log`: the request's logger, for the one line a failed last-use write may cause (R41). */
  async authenticate(apiKey: string, log: Pick<Logger, 'warn'> = this.#deps.log): Promise<Principal> {
    // R51: a value that cannot be a key (prefix, length, alphabet) costs no database round
    // trip: a flood of junk keys must not slow the customers whose keys are real.
    if (!couldBeApiKey(apiKey)) throw new ApiError('invalid_api_key');
    const now = this.#deps.clock.now();
    const period = monthPeriod(now);
    let facts;
    try {
      facts = await this.#deps.keys.callerFacts(hashApiKey(apiKey), period);
    } catch (cause) {
      throw new ApiError('api_key_authentication_unavailable', { cause });
    }
    if (!facts || !facts.keyActive || !facts.customerActive) throw new ApiError('invalid_api_key');
    this.#recordUse(facts.apiKeyId, now, log);
    return {
      customerId: facts.customerId,
      apiKeyId: facts.apiKeyId,
      mode: facts.mode,
      period,
      at: now,
      entitled: facts.entitled,
      planUsage: facts.planUsage,
    };
  }

  /** Records lastUsedAt outside the request's critical path (R32): never awaited, never fatal. */
  #recordUse(apiKeyId: string, now: Date, log: Pick<Logger, 'warn'>): void {
    const last = this.#lastRecorded.get(apiKeyId);
    if (last !== undefined && now.getTime() - last < RECORD_USE_INTERVAL_MS) return;
    this.#lastRecorded.set(apiKeyId, now.getTime());
    if (this.#lastRecorded.size > RECORD_USE_MEMORY) this.#lastRecorded.clear();
    this.#deps.keys
      .recordUse(apiKeyId, now)
      .catch((err: unknown) => log.warn({ cause: describeCause(err) }, 'could not record key last use'));
  }
}
