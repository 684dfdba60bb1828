// R50 in a network namespace whose DNS never answers: test/e2e/netns-dns/*.netns.ts run in a
// child started under `unshare -rnm` (user, network and mount namespaces), with only loopback
// up and /etc/resolv.conf bind-mounted to `nameserver 127.0.0.1`, where the child's own
// blackhole nameserver swallows every query. The child runs through `node scripts/test.ts`
// (root hooks, an embedded database of its own inside the namespace). This test passes only if
// the child ran its file and every test in it passed; without `unshare` it FAILS.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { quote, REPO, runChild } from '../support/e2e/namespace-child.ts';

const NETNS_DIR = path.join(REPO, 'test', 'e2e', 'netns-dns');

describe('image DNS off the shared threads, in a namespace whose nameserver never answers (R50)', function () {
  this.timeout(300_000);

  it('every file in test/e2e/netns-dns passes inside the namespace', async () => {
    const files = (await readdir(NETNS_DIR)).filter((f) => f.endsWith('.netns.ts')).sort().map((f) => path.join('test', 'e2e', 'netns-dns', f));
    expect(files.length, 'netns-dns files').to.be.at.least(1);
    const dir = await mkdtemp(path.join(tmpdir(), 'ers-dns-blackhole-'));
    try {
      const resolvConf = path.join(dir, 'resolv.conf');
      await writeFile(resolvConf, 'nameserver 127.0.0.1\n');
      const command = [process.execPath, path.join(REPO, 'scripts', 'test.ts'), '--reporter', 'spec', ...files].map(quote).join(' ');
      const env: NodeJS.ProcessEnv = { ...process.env, E2E_NETNS: '1' };
      delete env.DATABASE_URL;
      delete env.TEST_DATABASE_URL;
      const script = `ip link set lo up && mount --bind ${quote(resolvConf)} /etc/resolv.conf && exec ${command}`;
      const { code, output } = await runChild('unshare', ['-rnm', 'sh', '-c', script], env);
      const passing = Number(/(\d+) passing/.exec(output)?.[1] ?? 0);
      expect(/\d+ (failing|pending)/.test(output), `a failing or pending test in the namespace:\n${output}`).to.equal(false);
      expect(code, output).to.equal(0);
      expect(passing, output).to.be.at.least(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
