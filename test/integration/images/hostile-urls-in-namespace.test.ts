// Runs the hostile-URL files (test/integration/images/netns/*.netns.ts) in a network namespace
// that has only loopback (`unshare -rn`), so that if the boundary were wrong,
// nothing could leave the machine, and the system resolver cannot answer. Without
// unshare the test fails: a run outside the namespace would prove nothing about connections.
import { expect } from 'chai';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../../support/images/fixtures.ts';

const NETNS_DIR = path.join(REPO_ROOT, 'test', 'integration', 'images', 'netns');
const MOCHA = path.join(REPO_ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('close', (code) => resolve({ code, output }));
  });
}

describe('hostile URLs in a loopback-only network namespace', function () {
  this.timeout(180_000);

  it('every hostile-URL and SSRF-sample spec passes with no route beyond loopback', async () => {
    const files = readdirSync(NETNS_DIR)
      .filter((f) => f.endsWith('.netns.ts'))
      .map((f) => path.join('test', 'integration', 'images', 'netns', f));
    expect(files.length).to.be.greaterThan(0);
    const mochaArgs = [MOCHA, '--no-config', '--extension', 'ts', '--timeout', '20000', '--reporter', 'dot', '--exit', ...files];
    const quoted = [process.execPath, ...mochaArgs].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const namespaced = spawnSync('unshare', ['-rn', 'true']).status === 0;
    expect(namespaced, '`unshare -rn` must work here: the hostile URLs run only in a loopback-only namespace').to.equal(true);
    const { code, output } = await run('unshare', ['-rn', 'sh', '-c', `ip link set lo up && exec ${quoted}`], {
      ...process.env,
      IMAGES_NETNS: '1',
    });
    const summary = output.match(/\d+ passing.*|\d+ pending|\d+ failing/g) ?? [];
    process.stdout.write(`\n      [network namespace] ${summary.join(', ')}\n`);
    expect(summary.some((line) => /pending/.test(line)), 'nothing may be skipped in the namespace run').to.equal(false);
    expect(code, output).to.equal(0);
    // The hostile cases ran: a run of nothing exits 0 too, and the netns files hold well over 100.
    const passing = Number(/(\d+) passing/.exec(output)?.[1] ?? 0);
    expect(passing, output).to.be.at.least(100);
  });
});
