// Root hooks shared by every test file. The test database is migrated once, before any
// test (ruling R4: the schema comes only from migrations); the shared ORM closes at the end.
// Every response a test sees is checked against the published contract, by the test client
// (contract-validator.ts) and by the server's own response guard; a violation fails the test
// that caused it, loudly.
import { applyMigrations } from '../../src/db/migrator.ts';
import { observedViolations } from './contract-validator.ts';
import { closeTestOrm, openOrm, testDatabaseUrl } from './database.ts';
import { serverContractViolations } from './service.ts';

export async function mochaGlobalSetup(): Promise<void> {
  // The unit tier (`npm test -- --tier unit`) runs without a database.
  if (!process.env.TEST_DATABASE_URL) return;
  const orm = await openOrm(testDatabaseUrl(), 1);
  try {
    await applyMigrations(orm);
  } finally {
    await orm.close(true);
  }
}

export const mochaHooks = {
  afterEach(): void {
    const client = observedViolations.splice(0);
    const server = serverContractViolations.splice(0);
    if (client.length === 0 && server.length === 0) return;
    const lines = [
      ...client.map((v) => `${v.response.method} ${v.response.path} -> ${v.response.status}: ${v.problems.join('; ')}`),
      ...server.map((v) => `server guard: ${v.operationId} ${v.status}: ${v.errors.join('; ')}`),
    ];
    throw new Error(`responses broke the published contract:\n${lines.join('\n')}`);
  },
  async afterAll(): Promise<void> {
    await closeTestOrm();
  },
};
