// Ruling R3: without DATABASE_URL the service uses PGlite persisted under DATA_DIR. Stopping
// and starting again keeps every row.
import { expect } from 'chai';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config.ts';
import { Customer } from '../../../src/accounts/customer.entity.ts';
import { newEntityManager, openDatabase } from '../../../src/db/database.ts';
import { LOCK_FILE_NAME } from '../../../src/db/embedded-lock.ts';

describe('embedded database persistence (R3)', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'ers-persist-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps every row across close and reopen of the same DATA_DIR (R3)', async () => {
    const config = loadConfig({ DATA_DIR: dataDir });
    const first = await openDatabase(config, { migrate: true });
    expect(first.embedded).to.equal(true);
    const em = newEntityManager(first);
    const customer = em.create(Customer, { name: 'survives a restart' });
    await em.flush();
    await first.close();

    const second = await openDatabase(config, { migrate: true });
    try {
      const found = await newEntityManager(second).findOneOrFail(Customer, customer.id);
      expect(found.name).to.equal('survives a restart');
      expect(found.createdAt.getTime()).to.equal(customer.createdAt.getTime());
    } finally {
      await second.close();
    }
  });

  it('keeps the data under DATA_DIR/pgdata and holds a 0600 lock file only while open (R3)', async () => {
    const db = await openDatabase(loadConfig({ DATA_DIR: dataDir }));
    const lock = await stat(join(dataDir, LOCK_FILE_NAME));
    expect(lock.mode & 0o777).to.equal(0o600);
    expect((await stat(join(dataDir, 'pgdata'))).isDirectory()).to.equal(true);
    await db.close();
    let error: unknown;
    await stat(join(dataDir, LOCK_FILE_NAME)).catch((e: unknown) => (error = e));
    expect((error as NodeJS.ErrnoException | undefined)?.code).to.equal('ENOENT');
  });
});
