// R47 behind a managed pooler: the URL names the pool, and a pool's name is often an alias for
// the real database (`ers_pool = host=... dbname=evidence_reports`). The service starts through
// it, migrations included (no DATABASE_DIRECT_URL), and creates no database of the alias's name:
// it migrates and serves the database the pool leads to.
import { expect } from 'chai';
import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { createServerDatabase, testServerUrl } from '../support/database.ts';
import { startPgbouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { killInstances, startInstances, type Instance } from '../support/instances.ts';
import { send } from '../support/http-client.ts';

async function databaseNames(serverUrl: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return (await client.query<{ datname: string }>('select datname from pg_database')).rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

describe('behind a pooler whose pool name is an alias of the database (R47)', function () {
  this.timeout(90_000);
  let database: { url: string; drop(): Promise<void> };
  let bouncer: PgBouncer;
  let running: Instance[] = [];
  const alias = `ers_pool_${randomBytes(4).toString('hex')}`;

  before(async () => {
    database = await createServerDatabase();
    // Only the alias: the pooler leads nowhere else, as a managed pool does.
    bouncer = await startPgbouncer(database.url, {}, { [alias]: new URL(database.url).pathname.slice(1) });
  });
  after(async () => {
    killInstances(running);
    await bouncer?.stop();
    await database?.drop();
  });

  it('starts through the alias with migrations, serves, and creates no database named after the alias', async () => {
    const url = new URL(bouncer.urlFor(database.url));
    url.pathname = `/${alias}`;
    running = await startInstances(1, { DATABASE_URL: url.toString(), DATABASE_PREPARED_STATEMENTS: 'false' });
    const ready = await send(running[0]!.url, 'GET', '/readyz');
    expect(ready.status).to.equal(200);
    expect(await databaseNames(await testServerUrl())).not.to.include(alias);
    // The migrations went to the database the pool leads to.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>("select count(*) as n from information_schema.tables where table_name = 'evidence_report'");
      expect(Number(rows[0]?.n)).to.equal(1);
    } finally {
      await client.end();
    }
  });
});
