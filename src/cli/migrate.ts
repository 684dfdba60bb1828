// `npm run migrate` (ruling R4): applies pending migrations to DATABASE_URL or the embedded
// database, prints one line per applied migration, exits 0; one line and exit 1 on failure.
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { applyMigrations } from '../db/migrator.ts';

let db;
try {
  db = await openDatabase(loadConfig());
  for (const name of await applyMigrations(db.orm)) process.stdout.write(`applied ${name}\n`);
} catch (error) {
  process.stderr.write(`migration failed: ${String((error as Error).message).split('\n')[0]}\n`);
  process.exitCode = 1;
} finally {
  await db?.close();
}
