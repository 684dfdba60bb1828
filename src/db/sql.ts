// The hot path's statements (authentication, entitlement, quota, idempotency, the report write)
// go straight to the `pg` pool behind MikroORM (its documented getNativeClient()), as
// parameterised statements: no query building, no values inlined into SQL text, and on a
// PostgreSQL server each statement is prepared once per connection by name (issue 6: the CPU
// per request and the statements per request are what limit throughput). Entities, migrations
// and the admin commands keep using the ORM itself.
//
// The embedded database (ruling R3) is one PGlite session behind every connection: a prepared
// statement's name would collide across connections there (42P05), so on PGlite, whether this
// process serves it or reaches it through DATABASE_URL, statements stay unnamed.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Pool } from 'pg';
import { noopTelemetry, type Telemetry } from '../observability/telemetry.ts';

export interface Statement {
  readonly name: string;
  readonly text: string;
}

/** A named SQL statement with $1, $2 ... placeholders. */
export function statement(name: string, text: string): Statement {
  return Object.freeze({ name, text });
}

export interface Sql {
  /** The rows of one statement. */
  rows<T>(statement: Statement, params: readonly unknown[]): Promise<T[]>;
  /** The number of rows one statement changed. */
  count(statement: Statement, params: readonly unknown[]): Promise<number>;
}

export async function createSql(orm: MikroORM, telemetry: Pick<Telemetry, 'statement'> = noopTelemetry): Promise<Sql> {
  const pool: Pool = await orm.em.getConnection().getNativeClient();
  const { rows } = await pool.query<{ version: string }>('select version() as version');
  const prepare = !rows[0]?.version.includes('PGlite');
  const config = (st: Statement, params: readonly unknown[]) =>
    prepare ? { name: st.name, text: st.text, values: [...params] } : { text: st.text, values: [...params] };
  // One client span per statement, named by the statement's name only: never its parameters (R41).
  const run = (st: Statement, params: readonly unknown[]) => telemetry.statement(st.name, () => pool.query(config(st, params)));
  return {
    async rows<T>(st: Statement, params: readonly unknown[]): Promise<T[]> {
      return (await run(st, params)).rows as T[];
    },
    async count(st: Statement, params: readonly unknown[]): Promise<number> {
      return (await run(st, params)).rowCount ?? 0;
    },
  };
}
