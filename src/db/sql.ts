// The hot path's statements go straight to the `pg` pool behind MikroORM (its documented
// getNativeClient()), as parameterised statements: no query building, no values inlined into
// SQL text, and on a PostgreSQL server each statement is prepared once per connection by name
// (the CPU per request and the statements per request are what limit throughput).
// Entities, migrations and the admin commands keep using the ORM itself.
//
// The embedded database (ruling R3) is one PGlite session behind every connection: a prepared
// statement's name would collide across connections there (42P05), so on PGlite, whether this
// process serves it or reaches it through DATABASE_URL, statements stay unnamed.
//
// Behind a transaction-mode pooler (R47, DATABASE_PREPARED_STATEMENTS=false) the pool's client
// (bounded-pool.ts) drops every name, so the same statements go unnamed there too, and each
// carries R33's bounds in its own transaction.
//
// Every failure leaves as a PersistenceFailure ('unavailable' unless a repository knows
// better from its SQLSTATE): the stages above never see a driver error.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool, QueryResult } from 'pg';
import { noopTelemetry, type Telemetry } from '../observability/telemetry.ts';
import { PersistenceFailure, sqlStateOf } from './persistence-failure.ts';

export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** A named SQL statement with $1, $2 ... placeholders. */
export function statement(name: string, text: string): Statement {
  return Object.freeze({ name, text });
}

/** A statement as a library hands it over (rate-limiter-flexible names its own). */
interface QueryConfig {
  name?: string;
  text: string;
  values?: unknown[];
}

export interface Sql {
  /** The rows of one statement. */
  rows<T>(statement: Statement, params: readonly unknown[]): Promise<T[]>;
  /** The number of rows one statement changed. */
  count(statement: Statement, params: readonly unknown[]): Promise<number>;
  /** A library's statement, under the same naming rule (prepared on a server, unnamed on PGlite). */
  query(config: QueryConfig): Promise<QueryResult>;
  /** The pool, for what needs one session for a while (the sweep's advisory lock, R36). */
  readonly pool: Pool;
}

export async function createSql(orm: MikroORM, telemetry: Pick<Telemetry, 'statement'> = noopTelemetry): Promise<Sql> {
  const pool: Pool = await orm.em.getConnection().getNativeClient();
  const { rows } = await pool.query<{ version: string }>('select version() as version');
  const prepare = !rows[0]?.version.includes('PGlite');
  // One client span per statement, named by the statement's name only: never its parameters (R41).
  const run = (config: QueryConfig): Promise<QueryResult> =>
    telemetry.statement(config.name ?? 'unnamed', async () => {
      try {
        return await pool.query(prepare && config.name ? config : { text: config.text, values: config.values });
      } catch (cause) {
        throw new PersistenceFailure('unavailable', { cause, sqlState: sqlStateOf(cause) });
      }
    });
  return {
    pool,
    async rows<T>(st: Statement, params: readonly unknown[]): Promise<T[]> {
      return (await run({ name: st.name, text: st.text, values: [...params] })).rows as T[];
    },
    async count(st: Statement, params: readonly unknown[]): Promise<number> {
      return (await run({ name: st.name, text: st.text, values: [...params] })).rowCount ?? 0;
    },
    query: run,
  };
}
