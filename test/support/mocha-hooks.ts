// Root hooks shared by every test file. The test database is migrated once, before any
// test (ruling R4: the schema comes only from migrations); the shared ORM closes at the end.
import { applyMigrations } from '../../src/db/migrator.ts';
import { closeTestOrm, openOrm, testDatabaseUrl } from './database.ts';

export async function mochaGlobalSetup(): Promise<void> {
  const orm = await openOrm(testDatabaseUrl(), 1);
  try {
    await applyMigrations(orm);
  } finally {
    await orm.close(true);
  }
}

export const mochaHooks = {
  async afterAll(): Promise<void> {
    await closeTestOrm();
  },
};
