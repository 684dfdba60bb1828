// The table rate-limiter-flexible 11.4 RateLimiterPostgres reads and writes (ruling R20).
// Its shape is the library's (`key`, `points`, `expire`, in that order: it inserts with
// `VALUES ($1, $2, $3)`); OUR migration creates it and the limiter runs with
// `tableCreated: true`, so no process issues DDL at run time (ruling R4). Declared as an
// entity so the schema check in the tests covers it too.
import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

const RATE_LIMIT_TABLE = 'rate_limit_counter';

export const RateLimitCounter = defineEntity({
  name: 'RateLimitCounter',
  tableName: RATE_LIMIT_TABLE,
  properties: {
    key: p.string().length(255).primary(),
    points: p.integer().default(0),
    /** Epoch milliseconds; null means no expiry. */
    expire: p.bigint('number').nullable(),
  },
});
export type RateLimitCounter = InferEntity<typeof RateLimitCounter>;
