// Every SQL function's current text is a file in the folder of its domain (src/db/sql-functions.ts),
// applied by the migrator after the versioned migrations (R4): what the database runs is what
// the file says, on a fresh database and on an old one alike.
import { expect } from 'chai';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { applyMigrations } from '../../../src/db/migrator.ts';
import { SQL_FUNCTION_FILES, sqlFunctionFiles } from '../../../src/db/sql-functions.ts';
import { openOrm, withEmptyDatabase } from '../../support/database.ts';

interface FunctionRow {
  name: string;
  marker: string | null;
  definition: string;
}

const FUNCTIONS = `select p.proname as name, obj_description(p.oid, 'pg_proc') as marker, pg_get_functiondef(p.oid) as definition
  from pg_proc p join pg_namespace n on n.oid = p.pronamespace
  where n.nspname = current_schema() and p.prokind = 'f' order by 1`;

/** Runs fn on an empty database of the test database's kind, migrated (R4). */
async function withMigratedOrm(fn: (orm: MikroORM) => Promise<void>): Promise<void> {
  await withEmptyDatabase(async (url) => {
    const orm = await openOrm(url);
    try {
      await applyMigrations(orm);
      await fn(orm);
    } finally {
      await orm.close(true);
    }
  });
}

describe('SQL functions live in their domain folders (R4)', () => {
  it('each function of the schema is applied from its file, and no file names a function twice', async () => {
    await withMigratedOrm(async (orm) => {
      const rows = await orm.em.fork().execute<FunctionRow[]>(FUNCTIONS);
      const files = sqlFunctionFiles();
      expect(rows.map((row) => row.name)).to.have.members(files.map((file) => file.name));
      expect(new Set(files.map((file) => file.name)).size).to.equal(files.length);
      for (const file of files) {
        expect(rows.find((row) => row.name === file.name)?.marker, file.path).to.equal(file.marker);
      }
    });
  });

  it('no SQL function file sits in src/db: each is in the folder of the rule it holds', () => {
    for (const path of SQL_FUNCTION_FILES) expect(path, path).to.match(/^(accounts|plans|usage|reports|idempotency|rate-limit)\//);
  });

  it('a database that a newer release migrated keeps that release\'s functions: an older instance restarting during a rolling deploy does not put its own back (R34, R35)', async () => {
    await withMigratedOrm(async (orm) => {
      const em = orm.em.fork();
      // The newer release: one more migration, and another body of a function.
      await em.execute(`insert into mikro_orm_migrations (name) values ('Migration29990101000000_from_a_newer_release')`);
      await em.execute(`create or replace function usage_period_start(ts timestamptz) returns timestamptz
        language sql immutable parallel safe as $$ select date_trunc('month', ts at time zone 'UTC') at time zone 'UTC' /* newer */ $$`);
      await em.execute(`comment on function usage_period_start is 'ers-sql-file usage/usage-period-start.sql sha256:newer'`);

      const warnings: unknown[][] = [];
      const logger = { warn: (...args: unknown[]) => void warnings.push(args) } as unknown as Pick<Logger, 'warn'>;
      expect(await applyMigrations(orm, logger)).to.deep.equal([]);
      expect(warnings).to.deep.equal([
        [{ migrations: ['Migration29990101000000_from_a_newer_release'] }, 'the database was migrated by a newer release: its SQL functions are left as they are'],
      ]);

      const after = await orm.em.fork().execute<FunctionRow[]>(FUNCTIONS);
      const row = after.find((r) => r.name === 'usage_period_start');
      expect(row?.definition).to.contain('/* newer */');
      expect(row?.marker).to.equal('ers-sql-file usage/usage-period-start.sql sha256:newer');
    });
  });

  it('a function whose file changed, or that was edited in the database, is put back at the next run', async () => {
    await withMigratedOrm(async (orm) => {
      const em = orm.em.fork();
      // As if the file had been edited since: the database holds another text's marker.
      await em.execute(`comment on function caller_facts is 'ers-sql-file accounts/caller-facts.sql sha256:stale'`);
      // Edited by hand in the database: the body no longer matches the file.
      await em.execute(`create or replace function usage_period_start(ts timestamptz) returns timestamptz
        language sql immutable parallel safe as $$ select ts $$`);
      const before = await em.execute<FunctionRow[]>(FUNCTIONS);
      expect(before.find((row) => row.name === 'usage_period_start')?.definition).to.contain('select ts');

      expect(await applyMigrations(orm), 'no versioned migration is pending').to.deep.equal([]);

      const after = await orm.em.fork().execute<FunctionRow[]>(FUNCTIONS);
      const files = sqlFunctionFiles();
      for (const file of files) expect(after.find((row) => row.name === file.name)?.marker, file.path).to.equal(file.marker);
      expect(after.find((row) => row.name === 'usage_period_start')?.definition).to.contain("date_trunc('month'");
    });
  });
});
