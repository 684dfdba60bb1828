// Hostile URLs against the whole service in a network namespace that has only loopback
// (spec 4.1, R22): the files test/e2e/netns/*.netns.ts run in a child started under
// `unshare -rn`, through `node scripts/test.ts`, so the child has the suite's root hooks (every
// response checked against the contract) and an embedded PGlite database of its own, started
// inside the namespace. Nothing the service does there can leave the machine, and the child's
// port guards and connection log prove it connected nowhere it must not. This test passes only
// if the child ran its files and every test in them passed. Without `unshare -rn` it FAILS:
// the check is not optional.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { quote, REPO, runChild } from '../support/e2e/namespace-child.ts';

const NETNS_DIR = path.join(REPO, 'test', 'e2e', 'netns');

describe('hostile URLs against the whole service in a loopback-only network namespace (R22, R23)', function () {
  this.timeout(300_000);

  it('`unshare -rn` is available: this check cannot be skipped', () => {
    const probe = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up && ip -o link show up'], { encoding: 'utf8' });
    expect(
      probe.status,
      `unshare -rn is unavailable (${probe.error?.message ?? probe.stderr.trim()}); the hostile-URL check needs a loopback-only network namespace`,
    ).to.equal(0);
    // Only loopback is up inside.
    expect(probe.stdout.trim().split('\n').map((line) => line.split(':')[1]?.trim())).to.deep.equal(['lo']);
  });

  it('every netns file passes against the whole service: ruled codes, no connection to a refused address, no internal detail', async () => {
    const files = readdirSync(NETNS_DIR)
      .filter((f) => f.endsWith('.netns.ts'))
      .sort()
      .map((f) => path.join('test', 'e2e', 'netns', f));
    expect(files.length, 'netns files').to.be.at.least(3);
    const command = [process.execPath, path.join(REPO, 'scripts', 'test.ts'), '--reporter', 'spec', ...files].map(quote).join(' ');
    // The child starts its own embedded database inside the namespace: no DATABASE_URL.
    const env: NodeJS.ProcessEnv = { ...process.env, E2E_NETNS: '1' };
    delete env.DATABASE_URL;
    delete env.TEST_DATABASE_URL;
    const { code, output } = await runChild('unshare', ['-rn', 'sh', '-c', `ip link set lo up && exec ${command}`], env);
    const passing = Number(/(\d+) passing/.exec(output)?.[1] ?? 0);
    expect(/\d+ (failing|pending)/.test(output), `a failing or pending test in the namespace:\n${output}`).to.equal(false);
    expect(code, output).to.equal(0);
    expect(passing, output).to.be.at.least(50);
  });
});
