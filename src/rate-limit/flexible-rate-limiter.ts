// rate-limiter-flexible behind the RateLimiter port. The store is chosen by RATE_LIMIT_STORE
// (ruling R20): 'postgres' uses the rate_limit_counter table created by our migration (UNLOGGED,
// no WAL) on the service's own pool, 'redis' uses REDIS_URL, 'memory' is per process (one
// instance only, R34). Store failures fail closed.
import { certificatesProblem } from '../shared/pem-files.ts';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { Redis as RedisClient } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { RateLimitStore } from '../config.ts';
import { EVIDENCE_REPORT_OPERATION } from '../usage/usage-record.entity.ts';
import { RateLimitStoreError, type RateLimitDecision, type RateLimiter } from './rate-limiter.ts';
import type { DatabaseBounds } from '../db/bounded-pool.ts';
import type { Logger } from 'pino';
import type { Sql } from '../db/sql.ts';
import { describeCause } from '../shared/describe-cause.ts';

interface FlexibleRateLimiterOptions {
  store: RateLimitStore;
  points: number;
  windowSeconds: number;
  /** The service's statements (store 'postgres'): its pool, with the bounds of R33. */
  sql?: Sql;
  redisUrl?: string;
  /** R48: REDIS_TLS_CA, a PEM file of a private CA for rediss://. */
  redisTlsCa?: string;
  /**
   * R33: connecting, and one store round trip, are bounded like every database wait; a store
   * that hangs is a store that fails (503 rate_limit_unavailable, R20).
   */
  bounds: DatabaseBounds;
  /** Where a failing Redis connection is reported (store 'redis'). */
  logger?: Pick<Logger, 'warn'>;
}

const KEY_PREFIX = EVIDENCE_REPORT_OPERATION;
/**
 * Errors of a Redis command that may have been counted all the same: its answer never came
 * (ioredis's command timeout), or its connection closed after it was written. Redis may have run
 * it, and will if it was only stalled (a paused or swapping server runs what it had read).
 * Commands refused before they were sent (not connected, not ready) are not among them.
 */
const MAYBE_COUNTED = /^(Command timed out|Connection is closed\.|Reached the max retries per request limit)/;
/** Customers whose points are owed back at once, at most (memory stays bounded in a long outage). */
const MAX_OWED_CUSTOMERS = 10_000;
/** The same failure of the Redis connection is logged at most once in this long. */
const STORE_WARNING_INTERVAL_MS = 60_000;

/**
 * The error word a Redis server starts its error replies with (WRONGPASS, NOAUTH, READONLY, …):
 * a fixed code of the protocol, never the rest of the message.
 */
function redisErrorCode(error: unknown): { redisError?: string } {
  if (!(error instanceof Error) || error.name !== 'ReplyError') return {};
  const word = /^[A-Z][A-Z_]{1,31}\b/.exec(error.message)?.[0];
  return word === undefined ? {} : { redisError: word };
}

// Async because the Redis client is loaded only for the redis store (about 8 MiB resident).
export async function createFlexibleRateLimiter(options: FlexibleRateLimiterOptions): Promise<RateLimiter> {
  const { connectTimeoutMs, statementTimeoutMs } = options.bounds;
  const common = { points: options.points, duration: options.windowSeconds, keyPrefix: KEY_PREFIX };
  let limiter: RateLimiterAbstract;
  let close: () => Promise<void> = async () => {};
  let firstConnection: Promise<void> = Promise.resolve();
  let reconnectAfterTimeout: (error: unknown) => void = () => {};
  let owe: (key: string, error: unknown) => void = () => {};
  switch (options.store) {
    case 'memory':
      limiter = new RateLimiterMemory(common);
      break;
    case 'postgres': {
      const { sql } = options;
      if (sql === undefined) throw new TypeError('the postgres rate-limit store needs the service database');
      // The library names its statements ("rate_limit_counter:rlflx-upsert"): Sql prepares them
      // once per connection on a server and leaves them unnamed on the embedded database, where
      // every connection is one PGlite session and a second PREPARE of a name fails (42P05).
      limiter = new RateLimiterPostgres({
        ...common,
        storeClient: { query: (q: { name?: string; text: string; values?: unknown[] }) => sql.query(q) },
        storeType: 'pool',
        tableName: 'rate_limit_counter',
        tableCreated: true,
        clearExpiredByTimeout: false,
      });
      break;
    }
    case 'redis': {
      const { Redis } = await import('ioredis');
      // When each cause was last logged (a handful of causes at most: codes, not messages).
      const warnedAt = new Map<string, number>();
      const warnOfStore = (error: unknown): void => {
        const cause = { ...describeCause(error), ...redisErrorCode(error) };
        const key = JSON.stringify(cause);
        const now = performance.now();
        if (now - (warnedAt.get(key) ?? -Infinity) < STORE_WARNING_INTERVAL_MS) return;
        warnedAt.set(key, now);
        options.logger?.warn({ cause }, 'the rate-limit store (REDIS_URL) failed: report creations answer 503 rate_limit_unavailable until it answers (R20)');
      };
      const client: RedisClient = new Redis(options.redisUrl ?? '', {
        // R48: rediss:// is TLS with the certificate and host name verified, against REDIS_TLS_CA
        // when set (else the system's CAs); the user and password come from the URL (Redis 6 ACL).
        ...redisTls(options.redisUrl ?? '', options.redisTlsCa),
        // Fail fast instead of queueing commands while disconnected (fail closed, R20).
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        commandTimeout: statementTimeoutMs,
        connectTimeout: connectTimeoutMs,
        keepAlive: 10_000,
        lazyConnect: false,
        // A failover that moves the endpoint to the new primary can leave this connection open to
        // the old one, now a replica: every write would be READONLY until a restart. Such an
        // answer (or one of a node still loading or without its primary) reconnects, so the
        // endpoint is resolved again (R33: recover without a restart). The failed command is not
        // sent again: its request has its 503 already.
        reconnectOnError: reconnectsAfter,
        // Nor is any other: ioredis would send a closed connection's unanswered commands again on
        // the next one, so a consume whose request got its 503 would count once more, twice in
        // all when the stalled server ran the first copy too.
        autoResendUnfulfilledCommands: false,
      });
      // Fail closed (R20) is not enough for an operator: a store that refuses the connection
      // (a certificate not trusted, a wrong password, a closed port) must say why, once per
      // cause and minute, with its codes only (R26).
      client.on('error', (error: unknown) => warnOfStore(error));
      // A command that timed out leaves the connection waiting for an answer that may never come
      // (a partition that does not close the socket): ioredis would keep that connection, and
      // every later command would time out too. Reconnecting gives the next request a fresh one
      // (R33: recover without a restart once Redis answers again).
      reconnectAfterTimeout = (error) => {
        if (error instanceof Error && /timed out/i.test(error.message)) client.disconnect(true);
      };
      // The service listens before ioredis has made its first connection: a request arriving
      // then waits for it (at most the store timeout) instead of a 503 from a healthy Redis.
      // Later disconnections still fail fast (fail closed, R20).
      firstConnection = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, connectTimeoutMs).unref();
        client.once('ready', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      const redisLimiter = new RateLimiterRedis({ ...common, storeClient: client, rejectIfRedisNotReady: true });
      limiter = redisLimiter;
      // A request refused with 503 because its consume got no answer was not served, yet Redis may
      // have counted it: a stall of a few seconds under traffic would then use up a customer's
      // window, and lock them out for up to a window after Redis answers again (R33 wants
      // recovery within seconds). Such points are given back once a connection is ready again.
      // When the command never arrived, that gives the customer a point extra: the store errs
      // toward a few extra requests in a window, never fewer (docs/operations.md).
      const owed = new Map<string, number>();
      owe = (key, error) => {
        if (!(error instanceof Error) || !MAYBE_COUNTED.test(error.message)) return;
        if (!owed.has(key) && owed.size >= MAX_OWED_CUSTOMERS) return;
        owed.set(key, (owed.get(key) ?? 0) + 1);
      };
      client.on('ready', () => {
        for (const [key, points] of owed) {
          owed.delete(key);
          // Not given back now (the connection failed again): owed until the next one.
          redisLimiter.reward(key, points).catch(() => owed.set(key, (owed.get(key) ?? 0) + points));
        }
      });
      close = async () => {
        client.disconnect();
      };
      break;
    }
  }
  return {
    async consume(customerId: string): Promise<RateLimitDecision> {
      await firstConnection;
      try {
        const res = await limiter.consume(customerId, 1);
        return decision(true, options, res);
      } catch (outcome) {
        if (outcome instanceof RateLimiterRes) return decision(false, options, outcome);
        owe(customerId, outcome);
        reconnectAfterTimeout(outcome);
        throw new RateLimitStoreError('rate-limit store unavailable', { cause: outcome });
      }
    },
    close,
  };
}

/**
 * Whether a Redis error means this connection is on the wrong node: READONLY (a replica),
 * LOADING or MASTERDOWN. The store writes through Lua scripts, and before Redis 7 an error raised
 * inside a script comes back wrapped ("ERR Error running script (call to f_…): … -READONLY You
 * can't write against a read only replica."), so the code is looked for after a '-' too.
 */
export function reconnectsAfter(error: Error): boolean {
  return /(?:^|-)(?:READONLY|LOADING|MASTERDOWN)\b/.test(error.message);
}

/** ioredis's `tls` option for a rediss:// URL; a CA file that cannot be read, or holds no PEM certificate, stops the start. */
function redisTls(url: string, caFile: string | undefined): { tls?: ConnectionOptions } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  if (parsed.protocol !== 'rediss:') return {};
  let ca: Buffer | undefined;
  if (caFile !== undefined) {
    try {
      ca = readFileSync(caFile);
    } catch (error) {
      throw new RedisTlsError(`Invalid REDIS_TLS_CA: ${caFile} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`);
    }
    const problem = certificatesProblem(ca);
    if (problem !== undefined) throw new RedisTlsError(`Invalid REDIS_TLS_CA: ${caFile} ${problem}.`);
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  return { tls: { ...(ca === undefined ? {} : { ca }), ...(isIP(host) === 0 ? { servername: host } : {}), rejectUnauthorized: true } };
}

/** REDIS_TLS_CA names a file that cannot be read or holds no certificate: the message is the start's one line. */
class RedisTlsError extends Error {
  override readonly name = 'RedisTlsError';
}

function decision(allowed: boolean, options: FlexibleRateLimiterOptions, res: RateLimiterRes): RateLimitDecision {
  return {
    allowed,
    limit: options.points,
    remaining: allowed ? res.remainingPoints : 0,
    windowSeconds: options.windowSeconds,
    resetInMs: res.msBeforeNext > 0 ? res.msBeforeNext : options.windowSeconds * 1000,
  };
}
