// Database bootstrap (rulings R3, R4): DATABASE_URL when set, else the embedded PGlite.
// The composition root opens it once and passes it down; nothing here is a singleton.
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';
import type { EmbeddedRole } from './embedded-lock.ts';
import type { Config } from '../config.ts';
import { applyMigrations } from './migrator.ts';
import { ormOptions } from './orm-options.ts';
import { answersWithin, boundedPoolOptions, guardPool, type DatabaseBounds } from './bounded-pool.ts';
import { connectionFailureLine, connectionParts, plainTextByDefault, postgresTls, type PostgresTls } from './postgres-tls.ts';

/** R33: /readyz answers within 2 s whatever the database does. */
const READINESS_TIMEOUT_MS = 1_500;

export interface Database {
  orm: MikroORM;
  url: string;
  /** True when this is the embedded database (owned by this process or another). */
  embedded: boolean;
  /** True when the database answers `select 1` within READINESS_TIMEOUT_MS; never throws or hangs. */
  isReady(): Promise<boolean>;
  /**
   * Applies pending migrations under their advisory lock (R34) and returns the names applied:
   * over DATABASE_DIRECT_URL when it is set (R47: a session of its own, not a pooler's), else
   * over this database.
   */
  migrate(): Promise<string[]>;
  /**
   * The pool for what holds a session-level lock (the sweep's "one instance at a time", R36):
   * DATABASE_DIRECT_URL's (one connection) when it is set, else the service's own.
   */
  sessionPool(): Promise<pg.Pool>;
  close(): Promise<void>;
}

/** A start that cannot reach a database: its message is the one line the start stops with. */
class DatabaseStartError extends Error {
  override readonly name = 'DatabaseStartError';
}

/** The first statement on a new pool: a failure becomes one line naming the variable (R48). */
async function checkConnection(pool: pg.Pool, variable: string, tls: PostgresTls): Promise<void> {
  try {
    await pool.query('select 1');
  } catch (error) {
    throw new DatabaseStartError(connectionFailureLine(error, variable, tls), { cause: error });
  }
}


interface OpenDatabaseOptions {
  /** Apply pending migrations before returning (the server and the CLIs do). */
  migrate?: boolean;
  /** The embedded database's user: the server, or a tool that runs one command (the default). */
  embeddedRole?: EmbeddedRole;
  logger?: Logger;
}

export async function openDatabase(config: Config, options: OpenDatabaseOptions = {}): Promise<Database> {
  const { logger } = options;
  // PGlite and its socket server are loaded only for the embedded mode (R3).
  const embedded =
    config.databaseUrl === undefined ? await (await import('./embedded.ts')).startEmbedded(config.dataDir, logger, options.embeddedRole) : undefined;
  const url = embedded?.url ?? (config.databaseUrl as string);
  const bounds: DatabaseBounds = { connectTimeoutMs: config.dbConnectTimeoutMs, statementTimeoutMs: config.dbStatementTimeoutMs };
  const direct = embedded === undefined ? config.databaseDirectUrl : undefined;
  let orm: MikroORM | undefined;
  let sessionPool: pg.Pool | undefined;
  let nativePool: pg.Pool | undefined;
  const closeAll = async () => {
    await sessionPool?.end().catch(() => {});
    await orm?.close(true);
    // MikroORM ends its pg pool through Kysely, which ends only a pool it has run a query on: a
    // database opened and closed without one (a tool that only checked the connection) would keep
    // a connection open until pg's idle timeout, 10 s (and an embedded tool's guests wait for it).
    if (nativePool !== undefined && !nativePool.ending) await nativePool.end().catch(() => {});
    await embedded?.close();
  };
  try {
    // R48: the TLS settings of both URLs are read (files included) before anything connects.
    const tls: PostgresTls = embedded === undefined ? postgresTls(url, 'DATABASE_URL') : { mode: 'disable', ssl: false };
    const directTls = direct === undefined ? undefined : postgresTls(direct, 'DATABASE_DIRECT_URL');
    for (const [variable, candidate] of [['DATABASE_URL', embedded === undefined ? url : undefined], ['DATABASE_DIRECT_URL', direct]] as const) {
      if (candidate !== undefined && plainTextByDefault(candidate)) {
        logger?.warn(
          { variable },
          `${variable} names a host on another machine and no sslmode: the connection is plain text (unset means disable here; libpq would try TLS first). Set sslmode=verify-full (or require), or sslmode=disable to say plain text is meant (R48)`,
        );
      }
    }
    orm = await MikroORM.init(
      ormOptions(url, embedded?.poolMax ?? config.dbPoolSize, logger, bounds, {
        preparedStatements: config.databasePreparedStatements,
        // R47: a DATABASE_DIRECT_URL beside it says DATABASE_URL may be a transaction pooler.
        boundsPerStatement: !config.databasePreparedStatements || direct !== undefined,
        ssl: tls.ssl,
      }),
    );
    const pool = await orm.em.getConnection().getNativeClient();
    nativePool = pool;
    guardPool(pool);
    await checkConnection(pool, 'DATABASE_URL', tls);
    const open = orm;
    const migrate = async (): Promise<string[]> => {
      if (direct === undefined || directTls === undefined) return applyMigrations(open, logger);
      const directOrm = await MikroORM.init(ormOptions(direct, 1, logger, bounds, { ssl: directTls.ssl }));
      try {
        await checkConnection(await directOrm.em.getConnection().getNativeClient(), 'DATABASE_DIRECT_URL', directTls);
        return await applyMigrations(directOrm, logger);
      } finally {
        await directOrm.close(true);
      }
    };
    if (direct !== undefined && directTls !== undefined) {
      sessionPool = new pg.Pool({ ...connectionParts(direct), max: 1, ...boundedPoolOptions(bounds, { ssl: directTls.ssl }) });
      sessionPool.on('error', () => {});
      guardPool(sessionPool);
      await checkConnection(sessionPool, 'DATABASE_DIRECT_URL', directTls);
    }
    if (options.migrate) {
      const applied = await migrate();
      if (applied.length > 0) logger?.info({ migrations: applied }, 'migrations applied');
    }
    const session = sessionPool;
    return {
      orm: open,
      url,
      embedded: embedded !== undefined,
      isReady: () => readiness(open),
      migrate,
      sessionPool: async () => session ?? (await open.em.getConnection().getNativeClient()),
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
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
