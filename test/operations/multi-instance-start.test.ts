// Ruling R34: several instances may share one PostgreSQL database; migrations run under an
// advisory lock, so instances started at the same moment on an empty database wait for each
// other and all start. A start race is won or lost by timing, so it is run several times, each
// on a database of its own (a real PostgreSQL server even when the suite runs on the embedded
// database: only a server has several sessions).
import { expect } from 'chai';
import pg from 'pg';
import { MIGRATIONS } from '../../src/db/migrations/index.ts';
import { withServerDatabase } from '../support/database.ts';
import { send } from '../support/http-client.ts';
import { killInstances, startInstances, stopInstances, type Instance } from '../support/instances.ts';

const ROUNDS = 5;
const INSTANCES = 3;

async function appliedMigrations(url: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string }>('select name from mikro_orm_migrations order by id');
    return rows.map((row) => row.name);
  } finally {
    await client.end();
  }
}

describe('three instances started at once on an empty database (R34)', function () {
  this.timeout(ROUNDS * 60_000);
  let running: Instance[] = [];

  afterEach(() => killInstances(running));

  it(`all ${INSTANCES} start, every time (${ROUNDS} rounds, each on a fresh database): the migrations are applied exactly once, every instance is ready and exits 0 on SIGTERM`, async () => {
    const rounds: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await withServerDatabase(async (url) => {
        const started = performance.now();
        running = await startInstances(INSTANCES, { DATABASE_URL: url, DB_POOL_SIZE: '2', SHUTDOWN_DRAIN_MS: '0' });
        const startMs = Math.round(performance.now() - started);
        // One instance applied everything; the others waited for its lock and found nothing pending.
        const appliers = running.filter(({ process }) => process.stdoutLines.some((line) => line.includes('"migrations applied"')));
        expect(appliers, `round ${round}: instances that applied migrations`).to.have.length(1);
        expect(await appliedMigrations(url), `round ${round}: each migration once`).to.deep.equal(MIGRATIONS.map((m) => m.name));
        for (const { url: base } of running) expect((await send(base, 'GET', '/readyz')).status, `round ${round}: ${base}/readyz`).to.equal(200);
        expect(await stopInstances(running), `round ${round}: exit codes`).to.deep.equal(Array(INSTANCES).fill(0));
        running = [];
        rounds.push(`${startMs} ms`);
      });
    }
    process.stdout.write(`\n      start race: ${ROUNDS} rounds of ${INSTANCES} instances on an empty database, all started in ${rounds.join(', ')}\n`);
  });
});
