// operator-interface.md: on a fresh embedded database, `npm start` creates a demo customer
// (plan with 1,000 reports a month, entitlement, one key) and writes the key to
// DATA_DIR/demo-api-key with mode 0600; the caller prints the path, never the key (R26).
import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ensureDemoCustomer } from '../../../src/admin/demo-customer.ts';
import { loadConfig } from '../../../src/config.ts';
import { ApiKey } from '../../../src/accounts/api-key.entity.ts';
import { hashApiKey } from '../../../src/accounts/api-key-secret.ts';
import { Customer } from '../../../src/accounts/customer.entity.ts';
import { newEntityManager, openDatabase, type Database } from '../../../src/db/database.ts';
import { ProductEntitlement } from '../../../src/plans/product-entitlement.entity.ts';
import { PlanRepository } from '../../../src/plans/plan-repository.ts';
import { testDatabaseUrl } from '../../support/database.ts';

const silent = pino({ level: 'silent' });

describe('demo customer of a fresh embedded database (operator-interface.md)', () => {
  let dataDir: string;
  let db: Database;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ers-demo-'));
    db = await openDatabase(loadConfig({ DATA_DIR: dataDir }), { migrate: true });
  });
  afterEach(async () => {
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('creates the customer, a 1000/month plan, the entitlement and a key written to a 0600 file (R26)', async () => {
    // A world-readable leftover of an older database must not keep its mode or content.
    await writeFile(join(dataDir, 'demo-api-key'), 'stale\n', { mode: 0o644 });
    const path = await ensureDemoCustomer(db, dataDir, silent);
    expect(path).to.equal(join(dataDir, 'demo-api-key'));
    expect((await stat(path as string)).mode & 0o777).to.equal(0o600);
    const key = (await readFile(path as string, 'utf8')).trim();
    expect(key).to.match(/^ers_live_[0-9A-Za-z]{40}$/);
    const em = newEntityManager(db);
    const stored = await em.findOneOrFail(ApiKey, { keyHash: hashApiKey(key) });
    expect(stored.status).to.equal('active');
    const customer = await em.findOneOrFail(Customer, stored.customer.id);
    expect([customer.name, customer.status]).to.deep.equal(['Demo customer', 'active']);
    expect((await new PlanRepository(em).activePlan(customer.id))?.monthlyLimit).to.equal(1000);
    const entitlement = await em.findOneOrFail(ProductEntitlement, { customer, product: 'evidence_reports' });
    expect(entitlement.active).to.equal(true);
  });

  it('does nothing once any customer exists: a second start keeps the first key (operator-interface.md)', async () => {
    const path = (await ensureDemoCustomer(db, dataDir, silent)) as string;
    const key = await readFile(path, 'utf8');
    expect(await ensureDemoCustomer(db, dataDir, silent)).to.equal(undefined);
    expect(await readFile(path, 'utf8')).to.equal(key);
    expect(await newEntityManager(db).count(Customer, {})).to.equal(1);
  });

  it('does nothing on a DATABASE_URL database, whatever it holds (R3)', async () => {
    const external = await openDatabase(loadConfig({ DATABASE_URL: testDatabaseUrl(), DATA_DIR: dataDir }));
    try {
      expect(external.embedded).to.equal(false);
      expect(await ensureDemoCustomer(external, dataDir, silent)).to.equal(undefined);
      let missing: unknown;
      await stat(join(dataDir, 'demo-api-key')).catch((e: unknown) => (missing = e));
      expect((missing as NodeJS.ErrnoException).code).to.equal('ENOENT');
    } finally {
      await external.close();
    }
  });
});
