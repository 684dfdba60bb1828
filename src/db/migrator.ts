// Applies pending migrations (ruling R4): at start-up and by `npm run migrate`.
import type { MikroORM } from '@mikro-orm/postgresql';

// Any constant: it only has to be the same in every process migrating this database.
const MIGRATION_LOCK_KEY = 7_302_113_001;

/** Applies what is pending in one transaction and returns the names applied, in order. */
export async function applyMigrations(orm: MikroORM): Promise<string[]> {
  await prepareMigrator(orm);
  const connection = orm.em.getConnection();
  const applied = await connection.transactional(async (trx) => {
    // Two processes starting together (server and admin CLI) would otherwise both try to
    // create the same tables; the second waits here, then finds nothing pending.
    await connection.execute('select pg_advisory_xact_lock(?)', [MIGRATION_LOCK_KEY], 'run', trx);
    return orm.migrator.up({ transaction: trx });
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
  try {
    await orm.migrator.getExecuted();
  } catch {
    // Another process created the bookkeeping table at the same moment; it exists now.
    await orm.migrator.getExecuted();
  }
}
