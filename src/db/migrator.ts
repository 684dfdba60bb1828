// Applies pending migrations (ruling R4): at start-up and by `npm run migrate`.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';

import { setTimeout as sleep } from 'node:timers/promises';
import { isReadTimeout } from './bounded-pool.ts';
import { MIGRATIONS } from './migrations/index.ts';
import { applySqlFunctionFiles } from './sql-functions.ts';

/** MikroORM's bookkeeping table of applied migrations (its default name). */
const MIGRATIONS_TABLE = 'mikro_orm_migrations';

// Any constant: it only has to be the same in every process migrating this database.
const MIGRATION_LOCK_KEY = 7_302_113_001;
/** How long an instance waits for another one's migrations before its start fails (R34). */
const MIGRATION_LOCK_WAIT_MS = 120_000;
const MIGRATION_LOCK_POLL_MS = 100;

/**
 * Applies what is pending in one transaction (the versioned migrations, then the SQL function
 * files whose text changed) and returns the names of the migrations applied, in order.
 */
export async function applyMigrations(orm: MikroORM, logger?: Pick<Logger, 'warn'>): Promise<string[]> {
  try {
    return await applyPending(orm, logger);
  } catch (error) {
    // R33 bounds every statement, a migration's too. One that rewrites or scans a large table
    // (a checked column, a rebuilt key) can need longer than a request may: say how to apply it.
    // The server's statement_timeout says so with 57014; the embedded database has none, and
    // the driver's read timeout (the same bound) ends the wait there.
    if ((error as { code?: unknown }).code === STATEMENT_TIMEOUT || isReadTimeout(error)) {
      throw new Error(
        'a migration statement ran longer than DB_STATEMENT_TIMEOUT_MS allows (R33); apply the migrations once with a larger bound, ' +
          'e.g. `DB_STATEMENT_TIMEOUT_MS=600000 npm run migrate`, then start again',
        { cause: error },
      );
    }
    throw error;
  }
}

/** SQLSTATE query_canceled: statement_timeout fired (or the statement was cancelled). */
const STATEMENT_TIMEOUT = '57014';

/** A migration's name as MikroORM keeps it (without a .js or .ts ending). */
const migrationName = (name: string): string => name.replace(/\.[jt]s$/, '');

async function applyPending(orm: MikroORM, logger?: Pick<Logger, 'warn'>): Promise<string[]> {
  await prepareMigrator(orm);
  const connection = orm.em.getConnection();
  const applied = await connection.transactional(async (trx) => {
    // Ruling R34: instances starting together on an empty database (or a server and the admin
    // CLI) would otherwise all create the same tables; the others wait here for the one that
    // holds the lock, then find nothing pending. The wait is a poll of short statements rather
    // than one blocking pg_advisory_xact_lock: every statement stays within the statement bound
    // of R33, and the whole wait within MIGRATION_LOCK_WAIT_MS.
    const deadline = Date.now() + MIGRATION_LOCK_WAIT_MS;
    for (;;) {
      const [row] = await connection.execute<{ locked: boolean }[]>(
        'select pg_try_advisory_xact_lock(?) as locked',
        [MIGRATION_LOCK_KEY],
        'all',
        trx,
      );
      if (row?.locked) break;
      if (Date.now() > deadline) throw new Error('another process held the migration lock for too long');
      await sleep(MIGRATION_LOCK_POLL_MS);
    }
    // Function files hold today's text, which may name columns that a later migration adds
    // (sql-functions.ts): bodies are checked when called, as in pg_dump's restore scripts.
    await connection.execute('set local check_function_bodies = off', [], 'run', trx);
    const migrations = await orm.migrator.up({ transaction: trx });
    // The domain folders' SQL function files, after the tables they read (sql-functions.ts),
    // unless a newer release migrated this database: during a rolling deploy an older instance
    // (or an older admin job) restarts next to the newer ones, and its files would put the older
    // bodies back under the newer instances (R34, R35). The newest release keeps them.
    const executed = await connection.execute<{ name: string }[]>(`select name from ${MIGRATIONS_TABLE}`, [], 'all', trx);
    const known = new Set(MIGRATIONS.map((migration) => migrationName(migration.name)));
    const unknown = executed.filter((row) => !known.has(migrationName(row.name)));
    if (unknown.length === 0) {
      await applySqlFunctionFiles((sql, params = []) => connection.execute(sql, params, 'all', trx));
    } else {
      logger?.warn(
        { migrations: unknown.map((row) => row.name) },
        'the database was migrated by a newer release: its SQL functions are left as they are',
      );
    }
    return migrations;
  });
  return applied.map((migration) => migration.name);
}

/** Names of migrations not yet applied. */
export async function pendingMigrations(orm: MikroORM): Promise<string[]> {
  await prepareMigrator(orm);
  return (await orm.migrator.getPending()).map((migration) => migration.name);
}

// On first use MikroORM's migrator checks the database and creates its bookkeeping table
// OUTSIDE any transaction. Inside our transaction that query would wait for the
// transaction's own connection, a deadlock on PGlite (one session), so it runs first.
async function prepareMigrator(orm: MikroORM): Promise<void> {
  keepToTheGivenDatabase(orm);
  try {
    await orm.migrator.getExecuted();
  } catch {
    // Another process created the bookkeeping table at the same moment; it exists now.
    await orm.migrator.getExecuted();
  }
}

/**
 * MikroORM's migrator asks pg_database whether a database of the URL's name exists, whatever
 * `ensureDatabase: false` says, and when none does it reconnects to `postgres` and creates one.
 * Behind a pooler the URL's name is often the pool's alias for the real database (R47): the start
 * then failed, or, with a pooler that passes any name on, created an empty database of that name
 * and migrated nothing that the service reads. The service is connected to its database already
 * (the connection would have failed otherwise) and never creates one: the check is switched off.
 */
function keepToTheGivenDatabase(orm: MikroORM): void {
  orm.schema.ensureDatabase = () => Promise.resolve(false);
}
