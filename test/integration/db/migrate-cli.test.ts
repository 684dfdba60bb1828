// `npm run migrate` (ruling R4): one line per applied migration and exit 0; on failure one
// line and exit 1.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MIGRATIONS } from '../../../src/db/migrations/index.ts';
import pg from 'pg';
import { withEmptyDatabase, withServerDatabase } from '../../support/database.ts';

const run = promisify(execFile);
const CLI = new URL('../../../src/cli/migrate.ts', import.meta.url).pathname;

async function migrate(databaseUrl: string, env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI], { env: { ...process.env, DATABASE_URL: databaseUrl, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('npm run migrate (R4)', () => {
  it('prints one line per applied migration and exits 0, then prints nothing when up to date (R4)', async () => {
    await withEmptyDatabase(async (url) => {
      const first = await migrate(url);
      expect(first.code).to.equal(0);
      expect(first.stdout.trim().split('\n')).to.deep.equal(MIGRATIONS.map((m) => `applied ${m.name}`));
      const second = await migrate(url);
      expect(second).to.deep.equal({ code: 0, stdout: '', stderr: '' });
    });
  });

  it('a migration statement longer than DB_STATEMENT_TIMEOUT_MS (R33) fails with one line that says how to apply it; with the larger bound it applies (R4)', async () => {
    // A server database: PGlite is one session, and the wait needs a second one holding a lock.
    await withServerDatabase(async (url) => {
      expect((await migrate(url)).code).to.equal(0);
      // Another session holds the migrations' own table, so the migrator's first read waits.
      const holder = new pg.Client({ connectionString: url });
      await holder.connect();
      try {
        await holder.query('begin; lock table mikro_orm_migrations in access exclusive mode');
        const bounded = await migrate(url, { DB_STATEMENT_TIMEOUT_MS: '200' });
        expect(bounded.code).to.equal(1);
        expect(bounded.stderr.trimEnd().split('\n')).to.have.length(1);
        expect(bounded.stderr).to.contain('ran longer than DB_STATEMENT_TIMEOUT_MS').and.contain('DB_STATEMENT_TIMEOUT_MS=600000 npm run migrate');
        const larger = migrate(url, { DB_STATEMENT_TIMEOUT_MS: '600000' });
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await holder.query('commit');
        expect(await larger).to.deep.equal({ code: 0, stdout: '', stderr: '' });
      } finally {
        await holder.end();
      }
    });
  });

  it('exits 1 with one line on stderr when the database cannot be reached (R4)', async () => {
    const result = await migrate('postgres://nobody@127.0.0.1:1/none');
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr.trimEnd().split('\n')).to.have.length(1);
    expect(result.stderr).to.match(/^migration failed: /);
  });
});
