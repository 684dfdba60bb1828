// The embedded database on a disk that fills up (R3, R33, R35). PGlite answers the statement
// whose write the disk refused (53100 disk_full) and then hangs for ever at its next one, on
// the main thread, the process with it (no timer, no signal handler, /healthz silent, SIGTERM
// ignored). So the service answers that request with its fail-closed 503, stops with one line
// saying why, and exits 1 for its supervisor to start it again; once there is space the restart
// finds its data whole, the failed request neither stored nor counted.
//
// The disk is made full by a small LD_PRELOAD library (test/support/disk-full/disk-full.c, built
// here with the C compiler) that makes writes under pgdata/ fail with ENOSPC while a flag file
// exists: the service runs its production code unchanged, on a real PGlite and real files.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { startServerProcess, type ServerProcess } from '../../support/server-process.ts';

const run = promisify(execFile);
const SHIM_SOURCE = fileURLToPath(new URL('../../support/disk-full/disk-full.c', import.meta.url));
const BODY = JSON.stringify({ context: 'property_maintenance', evidence: { text: 'A pipe is leaking in the hallway ceiling.' } });

describe('the embedded database when the disk is full (R3, R33, R35)', function () {
  this.timeout(120_000);
  let base: string;
  let shim: string;
  let server: ServerProcess | undefined;

  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'ers-disk-full-'));
    shim = join(base, 'disk-full.so');
    await run('cc', ['-shared', '-fPIC', '-O2', '-o', shim, SHIM_SOURCE, '-ldl']);
  });
  after(async () => {
    server?.kill();
    await rm(base, { recursive: true, force: true });
  });

  async function start(env: Record<string, string>): Promise<{ server: ServerProcess; url: string; key: string }> {
    server = startServerProcess({ DATA_DIR: join(base, 'data'), PORT: '0', LOG_LEVEL: 'info', ...env });
    const line = await server.waitForLog('listening', 60_000);
    return { server, url: line.url as string, key: (await readFile(join(base, 'data', 'demo-api-key'), 'utf8')).trim() };
  }

  const post = (url: string, key: string) =>
    fetch(`${url}/v1/evidence/reports`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: BODY, signal: AbortSignal.timeout(20_000) });

  it('the write the disk refused is a 503, the process stops with one line and exits 1; restarted with space, nothing was lost or counted twice', async () => {
    const flag = join(base, 'FULL');
    const full = await start({ LD_PRELOAD: shim, ERS_TEST_DISK_FULL_FLAG: flag });
    expect((await post(full.url, full.key)).status, 'before the disk fills').to.equal(201);

    await writeFile(flag, '');
    const refused = await post(full.url, full.key);
    expect(refused.status, 'the write the disk refused').to.equal(503);
    const exited = await Promise.race([full.server.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 15_000))]);
    expect(exited, 'the process stops instead of hanging').to.not.equal('hung');
    expect(exited).to.deep.include({ code: 1 });
    const fatal = full.server.stdoutLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 60);
    expect(fatal, 'one line saying why').to.have.length(1);
    expect(fatal[0]).to.include({ code: '53100' });
    expect(String(fatal[0]?.msg)).to.include('Free space in DATA_DIR');

    await rm(flag);
    const again = await start({});
    expect((await post(again.url, again.key)).status, 'after a restart with space').to.equal(201);
    const usage = (await (await fetch(`${again.url}/v1/usage/current`, { headers: { 'x-api-key': again.key } })).json()) as { usage: { used: number }[] };
    expect(usage.usage[0]?.used, 'the two 201s, not the refused write').to.equal(2);
    again.server.child.kill('SIGTERM');
    expect((await again.server.exited).code).to.equal(0);
    server = undefined;
  });
});
