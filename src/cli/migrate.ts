// `npm run migrate` (ruling R4): applies pending migrations to DATABASE_URL or the embedded
// database (over DATABASE_DIRECT_URL when set, R47), prints one line per applied migration, exits 0; one line and exit 1 on failure.
import { loadConfig } from '../config.ts';
import { openDatabase } from '../db/database.ts';
import { redactSecrets, urlSecrets } from '../shared/url-secrets.ts';

let db;
try {
  db = await openDatabase(loadConfig());
  for (const name of await db.migrate()) process.stdout.write(`applied ${name}\n`);
} catch (error) {
  const secrets = urlSecrets({ databaseUrl: process.env.DATABASE_URL, databaseDirectUrl: process.env.DATABASE_DIRECT_URL, redisUrl: process.env.REDIS_URL });
  process.stderr.write(`migration failed: ${redactSecrets(String((error as Error).message).split('\n')[0] ?? '', secrets)}\n`);
  process.exitCode = 1;
} finally {
  await db?.close();
}
