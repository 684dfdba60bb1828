// The demo customer of `npm start` (operator-interface.md): on a fresh embedded database
// only, a customer with 1,000 reports a month, the entitlement and one key. The key goes to
// a file created with mode 0600; the caller prints the file's path, never the key (R26).
import { unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { AccountRepository } from '../accounts/account-repository.ts';
import { newEntityManager, type Database } from '../db/database.ts';
import { bootstrap } from './bootstrap.ts';

const DEMO_KEY_FILE = 'demo-api-key';

/** The key file's path when the demo customer was created now, else undefined. */
export async function ensureDemoCustomer(db: Database, dataDir: string, logger: Logger): Promise<string | undefined> {
  if (!db.embedded) return undefined;
  const path = join(dataDir, DEMO_KEY_FILE);
  return newEntityManager(db).transactional(async (tx) => {
    // "Fresh" means no customer at all: an operator's own data is never mixed with a demo.
    if (await new AccountRepository(tx).anyCustomer()) return undefined;
    const { customerId, apiKey } = await bootstrap(tx, { name: 'Demo customer', monthlyLimit: 1000 });
    // Written before commit: if the file cannot be written, no customer without a key remains.
    // A leftover file from an older database is replaced, never reused: the mode applies
    // only when the file is created.
    await unlink(path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    await writeFile(path, `${apiKey}\n`, { mode: 0o600, flag: 'wx' });
    logger.info({ customerId }, 'demo customer created');
    return path;
  });
}
