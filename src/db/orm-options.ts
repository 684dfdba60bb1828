// One place that says how the ORM is configured, for the server, the CLIs and the tests.
import { defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import type { Logger } from 'pino';
import { ENTITIES } from './entities.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { boundedPoolOptions, type ConnectionChoices, type DatabaseBounds } from './bounded-pool.ts';
import { connectionParts, withoutTlsParameters } from './postgres-tls.ts';

/** R33's defaults, for callers without a configuration (tests, tools). */
const DEFAULT_BOUNDS: DatabaseBounds = { connectTimeoutMs: 2_000, statementTimeoutMs: 5_000 };

export function ormOptions(
  url: string,
  poolMax: number,
  logger?: Logger,
  bounds: DatabaseBounds = DEFAULT_BOUNDS,
  choices: ConnectionChoices = {},
): Options {
  const { host, port } = connectionParts(url);
  return defineConfig({
    // R48: the TLS parameters reach the driver as its `ssl` option (postgres-tls.ts), never via the URL.
    clientUrl: withoutTlsParameters(url),
    // Host and port as libpq reads them: MikroORM takes an IPv6 literal's host with its brackets
    // (`[::1]`), which no resolver knows, and a URL without a port as port 0.
    host,
    port,
    entities: ENTITIES,
    extensions: [Migrator],
    migrations: {
      migrationsList: MIGRATIONS,
      // No snapshot file: it would be written into the source tree at run time.
      snapshot: false,
      silent: true,
    },
    // The usage counter's triggers (created by a migration) and the SQL functions (.sql files the
    // migrator applies, src/db/sql-functions.ts) are not entity metadata; without this, schema
    // diffs (and generated migrations) would drop them.
    schemaGenerator: { ignoreTriggers: true, ignoreRoutines: true },
    pool: { max: poolMax },
    // Handed to pg's Pool: every wait on the database is bounded (ruling R33); prepared
    // statements and TLS as the operator chose (R47, R48).
    driverOptions: boundedPoolOptions(bounds, choices),
    // A wrong DATABASE_URL must fail, not quietly create a new empty database.
    ensureDatabase: false,
    colors: false,
    // ORM messages go to pino at debug; queries are never logged with their parameters.
    logger: (message: string) => logger?.debug({ component: 'orm' }, message),
  });
}
