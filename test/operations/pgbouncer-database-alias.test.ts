// R47 behind a managed pooler: the URL names the pool, and a pool's name is often an alias for
// the real database (`ers_pool = host=... dbname=evidence_reports`). The service starts through
// it, migrations included (no DATABASE_DIRECT_URL), and creates no database of the alias's name:
// it migrates and serves the database the pool leads to.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { createServerDatabase, queryOnce, testServerUrl } from '../support/database.ts';
import { startPgbouncer, type PgBouncer } from '../support/pgbouncer.ts';
import { killInstances, startInstances, type Instance } from '../support/instances.ts';
import { send } from '../support/http-client.ts';

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
    const names = await queryOnce<{ datname: string }>(await testServerUrl(), 'select datname from pg_database');
    expect(names.map((row) => row.datname)).not.to.include(alias);
    // The migrations went to the database the pool leads to.
    const [tables] = await queryOnce<{ n: string }>(database.url, "select count(*) as n from information_schema.tables where table_name = 'evidence_report'");
    expect(Number(tables?.n)).to.equal(1);
  });
});
