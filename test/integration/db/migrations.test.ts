// Ruling R4: the schema comes from committed MikroORM migrations, applied at start and by
// `npm run migrate`, never from schema.update() at run time.
import { expect } from 'chai';
import { applyMigrations, pendingMigrations } from '../../../src/db/migrator.ts';
import { MIGRATIONS } from '../../../src/db/migrations/index.ts';
import { openOrm, testOrm, withEmptyDatabase } from '../../support/database.ts';

const TABLES = [
  'api_key',
  'customer',
  'evidence_report',
  'idempotency_record',
  'plan',
  'product_entitlement',
  'rate_limit_counter',
  'subscription',
  'usage_counter',
  'usage_record',
];

describe('migrations (R4)', () => {
  it('apply every migration, in order, on an empty database, creating every table (R4)', async () => {
    await withEmptyDatabase(async (url) => {
      const orm = await openOrm(url);
      try {
        expect(await applyMigrations(orm)).to.deep.equal(MIGRATIONS.map((m) => m.name));
        const rows = await orm.em
          .fork()
          .execute<{ table_name: string }[]>(
            `select table_name from information_schema.tables where table_schema = current_schema() and table_name <> 'mikro_orm_migrations' order by 1`,
          );
        expect(rows.map((r) => r.table_name)).to.deep.equal(TABLES);
      } finally {
        await orm.close(true);
      }
    });
  });

  it('are idempotent: a second run applies nothing and changes nothing (R4)', async () => {
    await withEmptyDatabase(async (url) => {
      const orm = await openOrm(url);
      try {
        await applyMigrations(orm);
        expect(await applyMigrations(orm)).to.deep.equal([]);
        expect(await pendingMigrations(orm)).to.deep.equal([]);
      } finally {
        await orm.close(true);
      }
    });
  });

  it('leave the test database exactly as the entities describe it: no schema diff (R4)', async () => {
    const orm = await testOrm();
    expect(await pendingMigrations(orm)).to.deep.equal([]);
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false });
    expect(diff.replace("set names 'utf8';", '').trim()).to.equal('');
  });
});
