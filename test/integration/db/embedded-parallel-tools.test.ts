// operator-interface.md: the admin command line exits 0 on success or 1 with one line. On an
// embedded DATA_DIR with no server running, each command opens PGlite itself for as long as it
// runs (R3, R49). Several commands at once (a provisioning script with xargs -P, parallel CI
// jobs) must each succeed: one does not join another's database, which goes away when that
// other command ends, but waits for it and then opens PGlite itself.
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';

const run = promisify(execFile);
const ADMIN = new URL('../../../src/cli/admin.ts', import.meta.url).pathname;

describe('admin commands at once on an embedded DATA_DIR with no server (R3, R49)', function () {
  this.timeout(120_000);
  let dataDir: string;
  before(async () => {
    dataDir = join(await mkdtemp(join(tmpdir(), 'ers-tools-')), 'data');
  });
  after(async () => {
    await rm(join(dataDir, '..'), { recursive: true, force: true });
  });

  it('four commands started together each exit 0 with their one JSON object, and all four customers exist', async () => {
    const env = { PATH: process.env.PATH ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        run(process.execPath, [ADMIN, 'customer', 'create', '--name', `parallel ${i}`, '--json'], { env }).then(
          ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
          (error: { code?: number; stdout?: string; stderr?: string }) => ({ code: error.code ?? -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' }),
        ),
      ),
    );
    for (const result of results) {
      expect(result.code, result.stderr).to.equal(0);
      expect(result.stderr).to.equal('');
      expect(JSON.parse(result.stdout)).to.have.property('customerId');
    }
    const ids = new Set(results.map((r) => (JSON.parse(r.stdout) as { customerId: string }).customerId));
    expect(ids.size).to.equal(4);
    // Each is in the database: a key can be made for every one of them.
    for (const customerId of ids) {
      const { stdout } = await run(process.execPath, [ADMIN, 'key', 'create', '--customer', customerId, '--json'], { env });
      expect(JSON.parse(stdout)).to.have.property('apiKey');
    }
  });
});
