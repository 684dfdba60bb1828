// `npm run migrate` (ruling R4): one line per applied migration and exit 0; on failure one
// line and exit 1.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { MIGRATIONS } from '../../../src/db/migrations/index.ts';
import { withEmptyDatabase } from '../../support/database.ts';

const run = promisify(execFile);
const CLI = new URL('../../../src/cli/migrate.ts', import.meta.url).pathname;

async function migrate(databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI], { env: { ...process.env, DATABASE_URL: databaseUrl } });
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

  it('exits 1 with one line on stderr when the database cannot be reached (R4)', async () => {
    const result = await migrate('postgres://nobody@127.0.0.1:1/none');
    expect(result.code).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr.trimEnd().split('\n')).to.have.length(1);
    expect(result.stderr).to.match(/^migration failed: /);
  });
});
