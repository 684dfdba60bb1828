// Database bootstrap (rulings R3, R4): DATABASE_URL when set, else the embedded PGlite.
// The composition root opens it once and passes it down; nothing here is a singleton.
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import { applyMigrations } from './migrator.ts';
import { ormOptions } from './orm-options.ts';
import { answersWithin, guardPool } from './bounded-pool.ts';

/** R33: /readyz answers within 2 s whatever the database does. */
const READINESS_TIMEOUT_MS = 1_500;

export interface Database {
  orm: MikroORM;
  url: string;
  /** True when this is the embedded database (owned by this process or another). */
  embedded: boolean;
  /** True when the database answers `select 1` within READINESS_TIMEOUT_MS; never throws or hangs. */
  isReady(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** Apply pending migrations before returning (the server and the CLIs do). */
  migrate?: boolean;
  logger?: Logger;
}

export async function openDatabase(config: Config, options: OpenDatabaseOptions = {}): Promise<Database> {
  const { logger } = options;
  // PGlite and its socket server are loaded only for the embedded mode (R3).
  const embedded =
    config.databaseUrl === undefined ? await (await import('./embedded.ts')).startEmbedded(config.dataDir, logger) : undefined;
  const url = embedded?.url ?? (config.databaseUrl as string);
  let orm: MikroORM | undefined;
  try {
    orm = await MikroORM.init(
      ormOptions(url, embedded?.poolMax ?? config.dbPoolSize, logger, {
        connectTimeoutMs: config.dbConnectTimeoutMs,
        statementTimeoutMs: config.dbStatementTimeoutMs,
      }),
    );
    guardPool(await orm.em.getConnection().getNativeClient());
    if (options.migrate) {
      const applied = await applyMigrations(orm);
      if (applied.length > 0) logger?.info({ migrations: applied }, 'migrations applied');
    }
  } catch (error) {
    await orm?.close(true);
    await embedded?.close();
    throw error;
  }
  const open = orm;
  return {
    orm: open,
    url,
    embedded: embedded !== undefined,
    isReady: () => readiness(open),
    close: async () => {
      await open.close(true);
      await embedded?.close();
    },
  };
}

/**
 * A fresh EntityManager per request or use case (MikroORM's identity map must not be
 * shared). Inside `em.transactional(cb)` use only the EntityManager passed to cb: PGlite is
 * one session, and a query on another connection while a transaction is open deadlocks.
 */
export function newEntityManager(db: Database): EntityManager {
  return db.orm.em.fork();
}

/** Readiness through the same pool the requests use (R33): a wedged pool is not ready. */
export function readiness(orm: MikroORM): Promise<boolean> {
  const ping = async (): Promise<boolean> => {
    const pool = await orm.em.getConnection().getNativeClient();
    await pool.query('select 1');
    return true;
  };
  return answersWithin(ping, READINESS_TIMEOUT_MS);
}
